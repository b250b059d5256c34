"""Rubric loading (clear one-line errors) and all-or-nothing scoring of records."""

from __future__ import annotations

import pytest

from grader.errors import RubricError
from grader.rubric import load, number_key
from grader.scoring import score

GOOD = """
[[test]]
id = "test_p.py::test_a"
number = "1.2"
name = "a"
part = 1
points = 3
visibility = "hidden"

[[test]]
id = "test_p.py::test_b"
number = "1.10"
name = "b"
part = "efficiency"
points = 2.5
"""


def write(tmp_path, text):
    path = tmp_path / "rubric.toml"
    path.write_text(text)
    return path


def rec(nodeid, status="passed", feedback=""):
    return {"nodeid": nodeid, "status": status, "feedback": feedback, "output": "", "duration": 0.1}


def test_load_reads_entries_with_defaults(tmp_path):
    a, b = load(write(tmp_path, GOOD))
    assert (a.id, a.points, a.visibility) == ("test_p.py::test_a", 3, "hidden")
    assert (b.part, b.points, b.visibility) == ("efficiency", 2.5, "visible")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("points = 3", "points = -1"), "non-negative"),
        (("points = 3", "points = true"), "non-negative"),
        (('visibility = "hidden"', 'visibility = "secret"'), "visibility"),
        (("part = 1", "part = 4"), "part"),
        (('id = "test_p.py::test_a"', 'id = "test_a"'), "id must"),
        (('number = "1.10"', 'number = "1.2"'), "duplicate"),
        (('name = "a"\n', ""), "missing key"),
        (("[[test]]", "[[test"), "cannot read"),
    ],
)
def test_bad_rubrics_name_the_file_and_the_problem(tmp_path, change, words):
    path = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(RubricError) as info:
        load(path)
    assert str(path) in str(info.value) and words in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_or_empty_rubric(tmp_path):
    with pytest.raises(RubricError, match="not found"):
        load(tmp_path / "nope.toml")
    with pytest.raises(RubricError, match="no \\[\\[test\\]\\]"):
        load(write(tmp_path, "title = 'x'\n"))


def test_numbers_sort_naturally():
    assert sorted(["1.10", "1.2", "2.1", "1.1"], key=number_key) == ["1.1", "1.2", "1.10", "2.1"]


def test_scoring_is_all_or_nothing_over_parametrized_cases(tmp_path):
    entries = load(write(tmp_path, GOOD))
    records = [
        rec("test_p.py::test_a[x]"),
        rec("test_p.py::test_a[y]", "failed", "boom"),
        rec("test_p.py::test_b"),
    ]
    a, b = score(entries, records)
    assert (a.status, a.score) == ("failed", 0) and a.feedback == "1 of 2 cases failed; first: [y]\nboom"
    assert (b.status, b.score) == ("passed", 2.5)


def test_not_implemented_and_not_run(tmp_path):
    entries = load(write(tmp_path, GOOD))
    a, b = score(entries, [rec("test_p.py::test_a", "not implemented", "Not implemented yet")])
    assert a.status == "not implemented" and a.score == 0
    assert b.status == "not run" and b.score == 0
    (a,) = score(entries, [rec("test_p.py::test_a")], partial_run=True)
    assert a.entry.name == "a"


def test_unlisted_tests_are_an_error(tmp_path):
    entries = load(write(tmp_path, GOOD))
    with pytest.raises(RubricError, match=r"no entry for test_p\.py::test_c"):
        score(entries, [rec("test_p.py::test_c"), rec("test_p.py::test_a")])
    assert len(score(entries, [rec("test_p.py::test_c")], allow_unlisted=True)) == 2


@pytest.mark.parametrize(("cpu_s", "said"), [(3.4, True), (0.12, False)])
def test_a_slow_import_is_said_once_above_the_tests_and_costs_nothing(tmp_path, cpu_s, said):
    """Each record carries its worker's import time (no test's time); the header names a slow one."""
    from grader import report

    entries = load(write(tmp_path, GOOD))
    records = [dict(rec("test_p.py::test_a"), **{"import": {"cpu_s": cpu_s, "limit_s": 60.0}})]
    records.append(dict(rec("test_p.py::test_b"), **{"import": {"cpu_s": 0.1, "limit_s": 60.0}}))
    scored = score(entries, records)
    assert [s.score for s in scored] == [3, 2.5]
    line = f"Importing your bpe package took {cpu_s:.1f} s of CPU time"
    summary = report.results_json(scored, execution_time=1, isolation="test")["output"]
    terminal = report.terminal(scored, width=200)
    assert (line in summary, terminal.count(line)) == (said, int(said))
    if said:
        assert "(not charged to any test; the import's own limit is 60 s)" in summary
