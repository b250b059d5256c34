"""Roster, LMS bulk downloads (Canvas, Gradescope, plain folders) and the LMS exports."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from grader.errors import StaffFileError
from grader.staff import class_roster
from grader.staff.class_roster import Roster, Student
from grader.staff.final_grades import compute
from grader.staff.late_policy import LatePolicy
from grader.staff.lms_download import MANIFEST, canvas_file_name, collect, submission_times
from grader.staff.lms_export import canvas_csv, gradescope_csv
from grader.staff.timestamps import parse_time

PST = timezone(timedelta(hours=-8))
ROSTER = Roster(
    (
        Student("s1", "Doe, Jane", "jane@uni.example", "111"),
        Student(
            "s2", "Roe, Rick", "rick@uni.example", "222", submitted_at=datetime(2026, 11, 20, 9, tzinfo=PST)
        ),
        Student("s3", "Poe, Pat", "pat@uni.example", "333", folder="pat-final"),
    )
)


def test_roster_reads_optional_columns_and_refuses_what_it_cannot_use(tmp_path):
    p = tmp_path / "roster.csv"
    p.write_text(
        '\ufeffstudent_id,name,lms_id,submitted_at\ns1,"Doe, Jane",111,2026-11-20T10:00:00Z\ns2,Rick,,\n'
    )
    r = class_roster.load(p)
    assert [(s.student_id, s.name, s.lms_id) for s in r.students] == [
        ("s1", "Doe, Jane", "111"),
        ("s2", "Rick", ""),
    ]
    assert r.students[0].submitted_at == datetime(2026, 11, 20, 10, tzinfo=UTC)
    for text, problem in [
        ("name\nJane\n", "needs the column"),
        ("student_id,name,grade\ns1,J,4\n", "unknown roster column"),
        ("student_id,name\ns1,J\ns1,K\n", "on the roster twice"),
        ("student_id,name,submitted_at\ns1,J,2026-11-20 10:00\n", "no UTC offset"),
    ]:
        p.write_text(text)
        with pytest.raises(StaffFileError, match=problem) as e:
            class_roster.load(p)
        assert str(p) in str(e.value)


def test_canvas_names_are_parsed_with_late_markers_and_resubmission_counters():
    assert canvas_file_name("doejane_111_9001_bpe.zip") == "bpe.zip"
    assert canvas_file_name("doejane_LATE_111_9001_char_bpe-2.py") == "char_bpe.py"
    assert canvas_file_name("plain.py") == "plain.py"


def test_collect_a_canvas_download(tmp_path):
    dl = tmp_path / "dl"
    dl.mkdir()
    (dl / "doejane_111_9001_bpe.zip").write_bytes(b"PK zip")
    (dl / "roerick_LATE_222_9002___init__.py").write_text("")
    (dl / "roerick_LATE_222_9002_char_bpe-1.py").write_text("x = 1\n")
    (dl / "nobody_999_9003_bpe.zip").write_bytes(b"PK")
    (dl / "pat-final").mkdir()  # a plain folder named as the roster says
    (dl / "pat-final" / "x.py").write_text("")
    (dl / ".DS_Store").write_text("")
    col = collect(dl, ROSTER, tmp_path / "subs")
    subs = tmp_path / "subs"
    assert sorted(p.name for p in subs.iterdir()) == [MANIFEST, "s1.zip", "s2", "s3"]
    assert sorted(p.name for p in (subs / "s2").iterdir()) == ["__init__.py", "char_bpe.py"]
    assert col.unmatched == ["nobody_999_9003_bpe.zip"]
    assert (col.students["s2"].lms, col.students["s2"].lms_late) == ("canvas", True)
    # times: the roster's, never the files' unless asked
    assert submission_times(subs) == {"s1": None, "s2": datetime(2026, 11, 20, 9, tzinfo=PST), "s3": None}
    col = collect(dl, ROSTER, tmp_path / "subs-mtime", use_mtime=True)
    assert col.students["s1"].submitted_at is not None
    assert col.students["s2"].submitted_at == datetime(2026, 11, 20, 9, tzinfo=PST)
    with pytest.raises(StaffFileError, match="already holds files"):
        collect(dl, ROSTER, subs)


def test_collect_a_gradescope_export_with_a_group(tmp_path):
    dl = tmp_path / "export"
    for sub in ("submission_1", "submission_2", "submission_3"):
        (dl / sub / "bpe").mkdir(parents=True)
        (dl / sub / "bpe" / "__init__.py").write_text("")
    (dl / "submission_metadata.yml").write_text(
        "submission_1:\n"
        "  :submitters:\n"
        "  - :name: Jane Doe\n    :sid: 's1'\n    :email: jane@uni.example\n"
        "  - :name: Pat Poe\n    :sid: ''\n    :email: PAT@uni.example\n"
        "  :created_at: 2026-11-20 23:05:10.123456000 -08:00\n"
        "submission_2:\n"
        "  :submitters:\n"
        "  - :name: Who\n    :sid: 'x9'\n    :email: who@else.example\n"
        "  :created_at: 2026-11-20 20:00:00.000000000 -08:00\n"
    )
    col = collect(dl, ROSTER, tmp_path / "subs")
    assert sorted(col.students) == ["s1", "s3"]  # both members of the group
    assert col.students["s3"].submitted_at == datetime(2026, 11, 20, 23, 5, 10, 123456, tzinfo=PST)
    assert sorted(col.unmatched) == ["submission_2", "submission_3"]
    assert (tmp_path / "subs" / "s3" / "bpe" / "__init__.py").is_file()
    assert json.loads((tmp_path / "subs" / MANIFEST).read_text())["unmatched"] == [
        "submission_2",
        "submission_3",
    ]


def test_times_need_an_offset():
    assert parse_time("2026-11-20T23:59:00Z", "x").utcoffset() == timedelta(0)
    with pytest.raises(StaffFileError, match=r"where: .* no UTC offset"):
        parse_time("2026-11-20T23:59:00", "where")
    with pytest.raises(StaffFileError, match="not a date"):
        parse_time("tomorrow", "where")


def test_exports_have_the_columns_the_lms_imports(tmp_path):
    from grader.staff.class_results import Graded, ResultRow

    results = {
        "s1": Graded(
            "s1", "graded", 80.0, 100.0, "", [ResultRow("1.1", "a", 80, 100, "failed", "", "visible")]
        ),
        "s2": Graded(
            "s2", "graded", 50.0, 100.0, "", [ResultRow("1.1", "a", 50, 100, "failed", "", "visible")]
        ),
        "stray": Graded("stray", "graded", 100.0, 100.0, "", []),
        "s3": Graded("s3", "grader_error", None, None, "the sandbox could not start", []),
    }
    policy = LatePolicy(due=datetime(2026, 11, 20, 8, tzinfo=PST), penalty_per_day=10)
    grades, strays = compute(results, ROSTER, policy=policy)
    assert strays == ["stray"]  # graded, but not on the roster: never exported
    assert canvas_csv(grades, "A1", "77").splitlines() == [
        "Student,ID,SIS User ID,SIS Login ID,Section,A1 (77)",
        "    Points Possible,,,,,100",
        '"Doe, Jane",111,s1,jane@uni.example,,80',
        '"Roe, Rick",222,s2,rick@uni.example,,45',
        '"Poe, Pat",333,s3,pat@uni.example,,',  # a grader error: no grade, not 0
    ]
    assert gradescope_csv(grades).splitlines() == [
        "First Name,Last Name,SID,Email,Sections,Total Score,Max Points,Status,Submission ID,"
        "Submission Time,Lateness (H:M:S)",
        "Jane,Doe,s1,jane@uni.example,,80,100,Graded,,,00:00:00",
        "Rick,Roe,s2,rick@uni.example,,45,100,Graded,,2026-11-20 09:00:00 -0800,01:00:00",
        "Pat,Poe,s3,pat@uni.example,,,100,Ungraded,,,00:00:00",
    ]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["finalize", "{out}", "--roster", "{tmp}/nope.csv"], "nope.csv"),
        (["finalize", "{out}", "--roster", "{tmp}/roster.csv", "--policy", "{tmp}/bad.toml"], "bad.toml"),
        (["collect", "{tmp}/nodir", "--roster", "{tmp}/roster.csv", "--into", "{tmp}/x"], "nodir"),
        (["similarity", "{tmp}/nodir", "--out", "{tmp}/sim"], "nodir"),
    ],
)
def test_bad_staff_files_give_one_line_naming_the_file(tmp_path, args, named):
    import subprocess
    import sys

    (tmp_path / "roster.csv").write_text("student_id,name\ns1,J\n")
    (tmp_path / "bad.toml").write_text("due = 2026-11-20\n")
    (tmp_path / "out").mkdir()
    argv = [a.format(tmp=tmp_path, out=tmp_path / "out") for a in args]
    p = subprocess.run(
        [sys.executable, "-m", "grader.farm", *argv], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and named in p.stderr and "Traceback" not in p.stderr


def test_collect_reads_submission_times_from_what_the_lms_exports(tmp_path, capsys):
    """Canvas's download has no times: they come from a submissions CSV (Canvas's `user_id`,
    `submitted_at`) or Gradescope's submission_metadata.yml, never silently from file times."""
    from grader.farm_cli import main as farm

    dl = tmp_path / "dl"
    dl.mkdir()
    for login, uid in (("doejane", "111"), ("roerick", "222"), ("poepat", "333")):
        (dl / f"{login}_{uid}_9001_bpe.zip").write_bytes(b"PK zip")
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "student_id,name,email,lms_id\ns1,Jane,jane@uni.example,111\ns2,Rick,,222\ns3,Pat,,333\n"
    )
    canvas = tmp_path / "submissions.csv"
    canvas.write_text(
        "user_id,assignment_id,submitted_at\n111,42,2026-11-21T08:10:00Z\n222,42,\n999,42,2026-11-20T01:00:00Z\n"
    )
    argv = ["collect", str(dl), "--roster", str(roster), "--times", str(canvas)]
    assert farm([*argv, "--into", str(tmp_path / "subs")]) == 0
    err = capsys.readouterr().err
    assert "no submission time for 2 student(s)" in err and err.rstrip().endswith(": s2, s3")
    assert submission_times(tmp_path / "subs") == {
        "s1": datetime(2026, 11, 21, 8, 10, tzinfo=UTC),
        "s2": None,
        "s3": None,
    }

    meta = tmp_path / "submission_metadata.yml"
    meta.write_text(
        "submission_7:\n  :submitters:\n  - :name: Rick\n    :sid: 's2'\n    :email: ''\n"
        "  :created_at: 2026-11-20 23:05:10.000000000 -08:00\n"
    )
    argv = ["collect", str(dl), "--roster", str(roster), "--times", str(meta)]
    assert farm([*argv, "--into", str(tmp_path / "subs2")]) == 0
    assert submission_times(tmp_path / "subs2")["s2"] == datetime(2026, 11, 20, 23, 5, 10, tzinfo=PST)

    # A submissions-history export: a row per attempt, in any order; the latest one counts.
    canvas.write_text("user_id,submitted_at\n111,2026-11-21T08:10:00Z\n111,2026-11-19T08:00:00Z\n111,\n")
    argv = ["collect", str(dl), "--roster", str(roster), "--times", str(canvas)]
    assert farm([*argv, "--into", str(tmp_path / "subs4")]) == 0
    assert submission_times(tmp_path / "subs4")["s1"] == datetime(2026, 11, 21, 8, 10, tzinfo=UTC)

    broken = tmp_path / "broken.yml"
    broken.write_text("submission_7:\n  :submitters: [1, 2]\n")
    for bad in (
        "who,when\n1,2\n",  # no usable columns
        "user_id,submitted_at\n999,2026-11-20T01:00:00Z\n",  # a file for another class
        broken,  # submitters that are not mappings
    ):
        if isinstance(bad, str):
            canvas.write_text(bad)
        capsys.readouterr()
        named = bad if isinstance(bad, Path) else canvas
        argv = ["collect", str(dl), "--roster", str(roster), "--times", str(named)]
        assert farm([*argv, "--into", str(tmp_path / "subs3")]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and str(named) in err
