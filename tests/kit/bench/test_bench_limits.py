"""`bench/run.py --only limits`: how its figures are derived from one grade's recorded times. The
grades themselves take minutes (five slow rows and a jailed endless loop), so they are run by
`make bench`, never here; only the arithmetic and the report are checked."""

from __future__ import annotations

from bench.limits import limits_md, shares
from grader.budgets import CALL_ALLOWANCE_S, CALL_FACTOR, CHILD_ALLOWANCE_S, TEST_FACTOR, PerTestLimits


def test_the_share_of_a_limit_is_the_largest_over_tests_and_over_calls():
    limits = PerTestLimits(
        {"a.py::x": 0.1, "a.py::y": 1.0, "a.py::z": 0.01}, 1.0, {"a.py::x": 0.1, "a.py::y": 0.01}
    )
    times = {
        "tests": {"a.py::x": 1.0, "a.py::y": 2.0, "a.py::z": 0.7, "a.py::new": 9.0},
        "calls": {"a.py::x": 0.5, "a.py::y": 1.0},
        "counts": {"a.py::x": [1, 0], "a.py::z": [2, 4]},  # z: 2 calls that ran 4 processes
    }
    got = shares(times, limits)
    z_limit = TEST_FACTOR * 0.01 + 2 * CALL_ALLOWANCE_S + 4 * CHILD_ALLOWANCE_S
    assert 0.7 / z_limit < 1.0 / (TEST_FACTOR * 0.1 + CALL_ALLOWANCE_S) < 0.7 / (TEST_FACTOR * 0.01 + 0.5)
    test_limit = TEST_FACTOR * 0.1 + CALL_ALLOWANCE_S  # so x, not z, is the worst, as z's allowances count
    assert got["test"]["test"] == "a.py::x" and got["test"]["share"] == round(1.0 / test_limit, 3)
    call_limit = CALL_FACTOR * 0.01 + CALL_ALLOWANCE_S
    assert got["call"]["test"] == "a.py::y" and got["call"]["share"] == round(1.0 / call_limit, 3)
    assert "a.py::new" not in {got["test"]["test"], got["call"]["test"]}  # no limit known: no share


def test_the_report_names_each_row_and_the_looping_ratio():
    section = {
        "factor": 25.0,
        "call_factor": 100.0,
        "allowance_s": 0.5,
        "child_allowance_s": 0.5,
        "rows": [
            {
                "row": "slow_naive_trainer",
                "test": {"share": 0.4, "test": "t.py::a", "used_s": 2.0, "limit_s": 5.0},
                "call": {"share": 0.5, "test": "t.py::b", "used_s": 1.0, "limit_s": 2.0},
            },
            {"row": "pool_spawn", "note": "not measured: boom"},
        ],
        "looping": {
            "row": "loop_forever",
            "seconds": 60.0,
            "score": 0,
            "reference_seconds": 25.0,
            "ratio": 2.4,
        },
    }
    text = "\n".join(limits_md(section))
    assert "| slow_naive_trainer | 0.40 (t.py::a: 2.00 of 5.00 s) | 0.50 (t.py::b: 1.00 of 2.00 s) |" in text
    assert "| pool_spawn | not measured: boom |" in text
    assert "graded in 60.0 s, score 0, 2.4x a full grade of the reference (25.0 s), both jailed" in text
    assert "Not measured: no times." in "\n".join(limits_md({"note": "no times"}))
