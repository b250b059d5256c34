"""Per-test CPU limits (grader/budgets.py, measured by grader/calibration.py): derived from the reference's recorded time for each
graded test, scaled to this machine, shared by the test's calls, with a floor."""

from __future__ import annotations

import json

import pytest

from grader import budgets, calibration, rubric
from grader.budgets import PerTestLimits
from grader.paths import DEFAULT_RUBRIC, TEST_TIMES_FILE


def test_a_limit_is_a_wide_multiple_of_the_reference_plus_an_allowance_per_call():
    limits = PerTestLimits({"t.py::slow": 1.0, "t.py::prop": 0.2}, scale=2.0)
    assert limits.seconds("t.py::slow") == budgets.TEST_FACTOR * 2.0
    assert "reference solution's 2.00 s" in limits.basis("t.py::slow") and "per call" in limits.basis(
        "t.py::slow"
    )
    assert limits.seconds("t.py::prop[case-3]") == limits.seconds("t.py::prop")  # by its base name
    assert limits.seconds("t.py::unknown") is None  # a test newer than the fixture: wall time only


def test_a_call_has_a_limit_of_its_own_from_the_references_slowest_call_in_that_test():
    limits = PerTestLimits({"t.py::prop": 2.0}, scale=2.0, calls={"t.py::prop": 0.01})
    assert limits.call_seconds("t.py::prop[case-3]") == budgets.CALL_FACTOR * 0.02
    assert limits.call_seconds("t.py::prop") < limits.seconds("t.py::prop")
    assert "slowest call in this test, 0.02 s" in limits.call_basis("t.py::prop")
    assert (
        PerTestLimits({"t.py::prop": 2.0}, scale=1.0).call_seconds("t.py::prop") is None
    )  # an older fixture


def test_the_handouts_times_name_no_hidden_test():
    text = json.dumps(
        {
            "tests": {"test_a.py::x": 1, "test_hidden_b.py::y": 2},
            "calls": {"test_hidden_b.py::y": 1, "test_a.py::x": 1},
        }
    )
    public = json.loads(calibration.public_test_times(text))
    assert public["tests"] == {"test_a.py::x": 1} and public["calls"] == {"test_a.py::x": 1}


def test_a_missing_or_broken_fixture_gives_no_limits(tmp_path):
    assert calibration.per_test_limits(tmp_path / "none.json") is None
    bad = tmp_path / "bad.json"
    bad.write_text('{"tests": []}')
    assert calibration.per_test_limits(bad) is None
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": {"t.py::a": 0.5}, "yardstick_cpu_s": 0.2}))
    limits = calibration.per_test_limits(good)
    assert limits is not None and limits.scale > 0 and limits.seconds("t.py::a") > 0


def test_the_recorded_times_cover_every_graded_test():
    """Regenerate with `bpe-kit fixtures --calibrate` when a graded test is added or renamed."""
    data = json.loads(TEST_TIMES_FILE.read_text())
    recorded = {key.split("[", 1)[0] for key in data["tests"]}
    missing = [e.id for e in rubric.load(DEFAULT_RUBRIC) if e.id not in recorded]
    assert not missing, f"no reference time for {missing}: run `bpe-kit fixtures --calibrate`"
    assert data["yardstick_cpu_s"] > 0 and all(v >= 0 for v in data["tests"].values())
    assert set(data["calls"]) == set(data["tests"])  # each test's slowest call, for its calls' limit
    assert all(0 <= data["calls"][k] <= data["tests"][k] for k in data["tests"])


@pytest.mark.parametrize("key", ["test_part2.py::test_train_tiny_words", "test_part3.py::test_decode"])
def test_the_recorded_limits_leave_correct_code_room(key):
    limits = calibration.per_test_limits()
    assert limits is not None
    assert limits.seconds(key) > 0
