"""A partial regrade on the farm never moves a total the code does not change.

Through the real CLI (`python -m grader farm grade`): a class of two catalogue rows, one with a
capped tie-break fault (train_tie_smaller_pair: 2.8 fails from it past its cap, so is "not charged
here") and one with two bugs, graded in full, then regraded with `--tests`: every total and every
test's grade stays as the full grade said, and 2.8 stays "same cause". A student graded with
`--tests` alone gets the earlier tests its proven fault needs graded too, so 2.8 is charged as in a
full grade there as well.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import catalogue
import kill_matrix
import pytest

from grader import rubric
from grader.farm import records
from grader.paths import DEFAULT_RUBRIC, KIT_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("farm-partial-regrade")]

CAPPED, TWO_BUGS = "train_tie_smaller_pair", "two_bugs_tie_and_decode"
ISSUE = "test_train_unicode_numbers"  # 2.8: failed from the tie-break fault, past its cap
ID_OF = {e.number: e.id for e in rubric.load(DEFAULT_RUBRIC)}
NUMBER_OF = {i: n for n, i in ID_OF.items()}


def farm(*args) -> subprocess.CompletedProcess:
    argv = [
        sys.executable,
        "-m",
        "grader",
        "farm",
        "grade",
        *map(str, args),
        "--budget",
        "1200",
        "--jobs",
        "2",
    ]
    done = subprocess.run(argv, cwd=KIT_ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def totals(out: Path) -> dict[str, str]:
    with (out / "gradebook.csv").open(encoding="utf-8") as f:
        return {row["student"]: row["total"] for row in csv.DictReader(f)}


def grades(out: Path, student: str) -> dict[str, tuple]:
    """{number: (score, charged)} of the student's results.json."""
    results = json.loads((records.student_dir(out, student) / "results.json").read_text(encoding="utf-8"))
    return {
        t["number"]: (t["score"], (t.get("extra_data") or {}).get("charged"), t["output"])
        for t in results["tests"]
    }


def expected_total(name: str) -> str:
    lost = kill_matrix.points_lost(kill_matrix.MATRIX.read_text(encoding="utf-8"))[name]
    return f"{100 - lost:g}"


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    if not catalogue.grade_all():
        pytest.skip("BPE_KIT_CATALOGUE=smoke: a quick run leaves the farm's full gradings out")
    root = tmp_path_factory.mktemp("partial-regrade")
    subs, out = root / "class", root / "out"
    for name in (CAPPED, TWO_BUGS):
        catalogue.materialize(catalogue.by_name(name), subs / name)
    farm(subs, "--out", out)
    full = {s: grades(out, s) for s in (CAPPED, TWO_BUGS)}
    return subs, out, totals(out), full


def test_the_full_grade_caps_the_tie_break_fault(klass):
    _, _, book, full = klass
    assert book == {CAPPED: expected_total(CAPPED), TWO_BUGS: expected_total(TWO_BUGS)}
    score, charged, output = full[CAPPED][NUMBER_OF["test_part2.py::" + ISSUE]]
    assert score > 0 and charged is False and "not charged here" in output


@pytest.mark.parametrize("tests", [ISSUE, f"{ISSUE} or test_decode"])
def test_a_partial_regrade_keeps_every_total_and_every_test(klass, tests):
    subs, out, book, full = klass
    runs = {s: records.read_record(records.record_path(out, s))["run"] for s in book}
    farm(subs, "--out", out, "--tests", tests)
    assert totals(out) == book  # 90 stays 90: the issue's regrade made it 88
    for student in book:
        assert records.read_record(records.record_path(out, student))["run"] != runs[student]
        again = grades(out, student)
        moved = {
            n: (full[student][n][:2], again[n][:2])
            for n in full[student]
            if again[n][:2] != full[student][n][:2]
        }
        assert not moved, f"{student}: --tests {tests!r} moved {moved}"
    _, charged, output = grades(out, CAPPED)[NUMBER_OF["test_part2.py::" + ISSUE]]
    assert charged is False and "not charged here" in output


def test_a_student_graded_by_tests_alone_is_charged_as_in_a_full_grade(klass, tmp_path):
    subs, _, _, full = klass
    out = tmp_path / "out"
    farm(subs, "--out", out, "--only", CAPPED, "--tests", ISSUE)
    rec = records.read_record(records.record_path(out, CAPPED))
    shown = grades(out, CAPPED)
    number = NUMBER_OF["test_part2.py::" + ISSUE]
    assert shown[number][1] is False and "not charged here" in shown[number][2]
    # the earlier tests the fault needed were graded too, and kept in the record as they are
    earlier = [n for n in shown if n != number]  # --tests asked for 2.8 alone
    assert earlier and all(shown[n][:2] == full[CAPPED][n][:2] for n in earlier)
    assert {t["number"] for t in rec["tests"]} == set(shown)
