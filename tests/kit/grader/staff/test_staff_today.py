"""The staff's commands read the gradebook as it is today, and every count they print is what
happened: run as a TA runs them (`python -m grader.farm ...`, in process) on a small class graded
through the real grader with the fake suite (tests/kit/instructor_fakes.py)."""

from __future__ import annotations

import csv
import shutil
import zipfile
from pathlib import Path

import pytest
from instructor_fakes import make_submission, write_suite

from grader.farm_cli import main as farm

pytest.importorskip("jinja2")

FULL = ("1.1", "1.2", "2.1", "3.1")
# The rubric as changed for a week: 1.1 worth 11 points, 3.1 worth 39 (the total still 100).
CHANGED = {"1.1": 11, "3.1": 39}
POLICY = """\
due = 2026-11-20T23:59:00-08:00
penalty_per_day = 10
"""


def _roster(root: Path, students: dict[str, str]) -> Path:
    """roster.csv: id -> submitted_at ("" for none)."""
    path = root / "roster.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "name", "lms_id", "submitted_at"])
        for n, (sid, at) in enumerate(students.items()):
            w.writerow([sid, sid.title(), str(1000 + n), at])
    return path


def _collected(subs: Path) -> Path:
    """Mark `subs` as a folder `collect` wrote, with no times (the roster gives them)."""
    (subs / ".collected.json").write_text('{"format": 1, "students": {}, "unmatched": []}\n')
    return subs


def _grade(subs: Path, out: Path, suite: tuple[Path, Path], *extra: str) -> int:
    tests, rubric = suite
    argv = ["grade", str(subs), "--out", str(out), "--tests-dir", str(tests), "--rubric", str(rubric)]
    return farm([*argv, "--budget", "120", "--jobs", "2", *extra])


def _table(path: Path) -> dict[str, dict]:
    rows = list(csv.DictReader(path.open()))
    key = "student" if "student" in rows[0] else "student_id"
    return {r[key]: r for r in rows}


def _canvas(out: Path) -> dict[str, str]:
    """Canvas's import file: SIS User ID -> score, and the points possible."""
    rows = list(csv.reader((out / "staff/canvas.csv").open()))
    return {"possible": rows[1][-1], **{r[2]: r[-1] for r in rows[2:]}}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """Three students graded under the course's rubric: ann 100 (a day late), ben 60, cat 10."""
    root = tmp_path_factory.mktemp("today")
    suite = write_suite(root / "suite")
    subs = root / "subs"
    make_submission(subs, "ann", points=FULL)
    make_submission(subs, "ben", points=("1.1", "1.2", "2.1"))
    make_submission(subs, "cat", points=("1.1",))
    _collected(subs)
    roster = _roster(root, {"ann": "2026-11-21T10:00:00-08:00", "ben": "", "cat": "", "dan": ""})
    (root / "late.toml").write_text(POLICY)
    assert _grade(subs, root / "out", suite) == 0
    return root, suite, subs, roster


def _copy(klass, tmp_path) -> tuple[Path, tuple[Path, Path], Path, Path]:
    """A copy of the graded class whose suite may be changed (the manifest names the suite's files)."""
    root, _, _, _ = klass
    dest = tmp_path / "class"
    shutil.copytree(root, dest, symlinks=True)
    manifest = dest / "out/manifest.json"
    manifest.write_text(manifest.read_text().replace(str(root), str(dest)))
    return dest, (dest / "suite/graded", dest / "suite/rubric.toml"), dest / "subs", dest / "roster.csv"


def test_a_rubric_changed_and_put_back_exports_only_todays_grades(klass, tmp_path, capsys):
    root, suite, subs, roster = _copy(klass, tmp_path)
    out = root / "out"
    write_suite(root / "suite", points=CHANGED)  # the rubric changes, and one student is regraded
    assert _grade(subs, out, suite, "--only", "ann") == 0
    assert _table(out / "gradebook.csv")["ann"]["1.1 merge"] == "11"
    write_suite(root / "suite")  # the rubric is put back; only report and finalize are run
    capsys.readouterr()
    assert farm(["report", str(out)]) == 0
    err = capsys.readouterr().err
    assert "STALE: 1 student(s)" in err and err.rstrip().endswith("gradebook.csv): ann")
    book = _table(out / "gradebook.csv")
    assert book["ann"]["stale"] == "STALE: 1.1 1.2 2.1 3.1"  # 11 points on a test now worth 10
    assert (book["ben"]["stale"], book["ben"]["total"], book["cat"]["stale"]) == ("", "60", "")
    assert "STALE" in (out / "report.html").read_text()

    common = ["--roster", str(roster), "--policy", str(root / "late.toml"), "--submissions", str(subs)]
    assert farm(["finalize", str(out), *common]) == 0
    err = capsys.readouterr().err
    assert "ann: stale, no grade exported" in err
    assert _canvas(out) == {"possible": "100", "ann": "", "ben": "60", "cat": "10", "dan": "0"}
    final = _table(out / "staff/final_gradebook.csv")
    assert (final["ann"]["status"], final["ann"]["final"], final["ann"]["1.1"]) == ("stale", "", "")

    assert _grade(subs, out, suite) == 0  # the farm regrades the stale student only
    assert farm(["finalize", str(out), *common]) == 0
    assert _canvas(out) == {"possible": "100", "ann": "90", "ben": "60", "cat": "10", "dan": "0"}


def test_a_mistyped_submissions_folder_is_one_line_and_exit_2(klass, capsys):
    root, _, _, roster = klass
    for folder in (root / "no-such-dir", root / "suite"):  # missing; not a folder `collect` wrote
        capsys.readouterr()
        code = farm(["finalize", str(root / "out"), "--roster", str(roster), "--submissions", str(folder)])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and str(folder) in err, err


def test_a_bonus_above_the_maximum_is_capped_unless_the_course_allows_it(klass, tmp_path, capsys):
    root, _, subs, roster = klass
    overrides = tmp_path / "overrides.csv"
    overrides.write_text("student,target,points,reason,who\nann,total,+5,presented in class,Prof. Lee\n")
    out = tmp_path / "out"
    shutil.copytree(root / "out", out, symlinks=True)
    common = ["--roster", str(roster), "--overrides", str(overrides), "--submissions", str(subs)]
    for allow, final, note in (
        ([], "100", "capped at the maximum, 100: the adjustments came to 105"),
        (["--allow-above-max"], "105", "includes 5 bonus point(s) above the maximum of 100"),
    ):
        assert farm(["finalize", str(out), *common, *allow]) == 0
        assert _canvas(out)["ann"] == final
        assert note in _table(out / "staff/final_gradebook.csv")["ann"]["notes"]
        pages = tmp_path / f"pages{len(allow)}"
        assert farm(["release", str(out), *common, *allow, "--to", str(pages)]) == 0
        page = (pages / "ann/feedback.html").read_text()
        assert note in page and f"<strong>{final} / 100" in page
        assert note in (pages / "ann/feedback.md").read_text()


def test_every_count_a_run_prints_says_what_happened_to_whom(tmp_path, capsys):
    suite = write_suite(tmp_path / "suite")
    subs, out = tmp_path / "subs", tmp_path / "out"
    for s in ("ann", "ben", "cat"):
        make_submission(subs, s, points=FULL)
    (subs / "dud.zip").write_bytes(b"not a zip")
    assert _grade(subs, out, suite) == 0
    write_suite(tmp_path / "suite", points=CHANGED)
    capsys.readouterr()
    assert _grade(subs, out, suite, "--keep-stale") == 0
    err = capsys.readouterr().err
    assert "STALE: 4 student(s) kept by --keep-stale" in err
    assert "STALE: 4 student(s) have results" in err
    assert all(row["stale"] for row in _table(out / "gradebook.csv").values())

    write_suite(tmp_path / "suite")  # back to the rubric they were graded with: all current again
    make_submission(subs, "cat", points=("1.1",))  # cat uploads again: stale
    capsys.readouterr()
    assert _grade(subs, out, suite, "--force", "--only", "ann") == 0
    err = capsys.readouterr().err
    assert "already graded" not in err
    assert "3 not selected by --only, left as they are (2 graded by this kit, 1 stale)" in err
    capsys.readouterr()
    assert _grade(subs, out, suite, "--keep-stale") == 0
    err = capsys.readouterr().err
    assert "3 already graded by this kit" in err and "STALE: 1 student(s) kept by --keep-stale" in err


def test_an_unreadable_upload_replaced_since_is_no_grade(klass, tmp_path, capsys):
    """A zero for an upload that is no longer the student's would be silently wrong."""
    root, suite, subs, roster = _copy(klass, tmp_path)
    shutil.rmtree(subs / "cat")
    (subs / "cat.zip").write_bytes(b"not a zip")
    assert _grade(subs, root / "out", suite, "--only", "cat") == 0
    with zipfile.ZipFile(subs / "cat.zip", "w") as z:  # cat uploads a readable zip
        z.writestr("bpe/__init__.py", "")
    assert farm(["finalize", str(root / "out"), "--roster", str(roster), "--submissions", str(subs)]) == 0
    assert _canvas(root / "out")["cat"] == ""
    assert "cat: stale, no grade exported" in capsys.readouterr().err


def test_an_upload_the_farm_has_not_graded_is_no_grade_and_never_a_missing_zero(klass, tmp_path, capsys):
    root, _, subs, roster = _copy(klass, tmp_path)
    make_submission(subs, "dan", points=FULL)  # dan uploads after the farm ran
    assert farm(["finalize", str(root / "out"), "--roster", str(roster), "--submissions", str(subs)]) == 0
    assert _canvas(root / "out")["dan"] == ""
    assert "dan: not_graded, no grade exported: submitted, not graded yet" in capsys.readouterr().err
    assert farm(["report", str(root / "out")]) == 0
    assert _table(root / "out/gradebook.csv")["dan"]["status"] == "not_graded"


def test_the_class_report_shows_final_beside_raw_and_counts_the_roster_missing(klass, tmp_path):
    root, _, subs, roster = _copy(klass, tmp_path)
    out = root / "out"
    overrides = tmp_path / "overrides.csv"
    overrides.write_text("student,target,points,reason,who\ncat,total,+5,fixture typo,TA Kim\n")
    assert farm(["report", str(out)]) == 0
    overview = (out / "report.html").read_text()
    assert "missing (on the roster" not in overview and "are not counted here" in overview
    assert "data-final" not in (out / "report/students-1.html").read_text()

    policy = ["--policy", str(root / "late.toml"), "--overrides", str(overrides)]
    assert farm(["report", str(out), "--roster", str(roster), *policy, "--submissions", str(subs)]) == 0
    overview = (out / "report.html").read_text()
    assert "1 missing (on the roster, no submission)" in overview and "dan (Dan)" in overview
    assert "final (overrides, late penalty)" in overview
    page = (out / "report/students-1.html").read_text()
    for student, raw, final in (("ann", "100", "90"), ("ben", "60", "60"), ("cat", "10", "15")):
        row = page.split(f'<tr data-student="{student}"', 1)[1].split("</tr>", 1)[0]
        assert f">{raw}/100<" in row and f"data-final>{final}/100<" in row, row
