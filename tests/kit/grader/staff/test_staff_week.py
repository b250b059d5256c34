"""The course staff's week end to end, on a fake class of 10 taken from a Canvas bulk download:
collect with a roster, grade (the farm through the real grader, with the fake suite), finalize with a late policy, an
extension and overrides, release the feedback pages, and check two near-copies are ranked first."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess

import pytest
from staff_fakes import KIT, canvas_zip, renamed, write_starter, write_suite

from grader.farm import records
from grader.farm.batch import grade_all
from grader.farm_cli import main as farm
from grader.request import GradeRequest

pytest.importorskip("jinja2")
pytest.importorskip("copydetect")

# The fake suite's tests passed (1.1: 10 points, 1.2: 20, 2.1: 30, 3.1: 40, after the due date)
FULL = ("1.1", "1.2", "2.1", "3.1")
PART = ("1.1", "1.2", "2.1")
SOL = KIT / "solution/bpe"
ORIGINAL = (SOL / "char_bpe.py").read_text()
# id, name, Canvas login, Canvas user id, submitted at (None: no submission), tests passed, code
CLASS = [
    ("s01", "Lovelace, Ada", "lovelaceada", "1001", "2026-11-20T20:00:00-08:00", FULL, "training.py"),
    ("s02", "Turing, Alan", "turingalan", "1002", "2026-11-21T00:10:00-08:00", PART, "pretokenize.py"),
    ("s03", "Hopper, Grace", "hoppergrace", "1003", "2026-11-22T12:00:00-08:00", PART, "gpt2_bytes.py"),
    (
        "s04",
        "Dijkstra, Edsger",
        "dijkstraedsger",
        "1004",
        "2026-11-25T23:00:00-08:00",
        FULL,
        "tokenizer.py",
    ),
    (
        "s05",
        "Liskov, Barbara",
        "liskovbarbara",
        "1005",
        "2026-11-21T20:00:00-08:00",
        FULL,
        "extras/segments.py",
    ),
    (
        "s06",
        "Knuth, Donald",
        "knuthdonald",
        "1006",
        "2026-11-20T12:00:00-08:00",
        ("1.1", "1.2", "3.1"),
        "extras/progress.py",
    ),
    (
        "s07",
        "Thompson, Ken",
        "thompsonken",
        "1007",
        "2026-11-20T22:00:00-08:00",
        ("1.1", "1.2"),
        None,
    ),
    (
        "s08",
        "Ritchie, Dennis",
        "ritchiedennis",
        "1008",
        "2026-11-20T23:00:00-08:00",
        ("1.1", "1.2"),
        "copy",
    ),
    ("s09", "Allen, Frances", "allenfrances", "1009", None, None, None),
    (
        "s10",
        "Hamilton, Margaret",
        "hamiltonmargaret",
        "1010",
        "2026-11-21T03:00:00-08:00",
        FULL,
        "extras/parallel_counts.py",
    ),
]
POLICY = """\
due = 2026-11-20T23:59:00-08:00
grace_minutes = 15
penalty_per_day = 10
max_late_days = 3

[extensions]
s05 = 2
"""
OVERRIDES = """\
student,target,points,reason,who
s06,2.1,+5,"encode() was right on the fixture with the typo",TA Kim
s06,total,-10,"late-night <script>alert(1)</script> note",Prof. Lee
"""
EXPECTED_CANVAS = """\
Student,ID,SIS User ID,SIS Login ID,Section,BPE tokenizer (4242)
    Points Possible,,,,,100
"Lovelace, Ada",1001,s01,s01@uni.example,L01,100
"Turing, Alan",1002,s02,s02@uni.example,L01,60
"Hopper, Grace",1003,s03,s03@uni.example,L01,48
"Dijkstra, Edsger",1004,s04,s04@uni.example,L01,0
"Liskov, Barbara",1005,s05,s05@uni.example,L01,100
"Knuth, Donald",1006,s06,s06@uni.example,L01,65
"Thompson, Ken",1007,s07,s07@uni.example,L01,30
"Ritchie, Dennis",1008,s08,s08@uni.example,L01,30
"Allen, Frances",1009,s09,s09@uni.example,L01,0
"Hamilton, Margaret",1010,s10,s10@uni.example,L01,90
"""


@pytest.fixture(scope="module")
def week(tmp_path_factory):
    root = tmp_path_factory.mktemp("week")
    download, rows = root / "canvas", []
    for n, (sid, name, login, uid, at, passes, code) in enumerate(CLASS):
        rows.append(
            {
                "student_id": sid,
                "name": name,
                "email": f"{sid}@uni.example",
                "lms_id": uid,
                "section": "L01",
                "submitted_at": at or "",
            }
        )
        if at is None:
            continue
        text = ORIGINAL if code is None else renamed(ORIGINAL) if code == "copy" else (SOL / code).read_text()
        late = at > "2026-11-21T00:14"  # the marker Canvas adds; the times come from the roster
        canvas_zip(download, login, uid, str(5000 + n), code=text, passes=passes, late=late)
    canvas_zip(download, "strangerx", "99999", "6000", code="x = 1\n", passes=FULL)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    (root / "roster.csv").write_text(buf.getvalue())
    (root / "late.toml").write_text(POLICY)
    (root / "overrides.csv").write_text(OVERRIDES)
    return root


def test_the_week(week, capsys):
    subs, out, r = week / "submissions", week / "farm", str(week / "roster.csv")

    # collect: one zip per roster student, the stranger listed and left out
    assert farm(["collect", str(week / "canvas"), "--roster", r, "--into", str(subs)]) == 0
    err = capsys.readouterr().err
    assert "matches nobody on the roster (not collected): strangerx_99999_6000_bpe.zip" in err
    assert "no submission from 1 student(s) on the roster: s09 (Allen, Frances)" in err
    assert sorted(p.name for p in subs.iterdir()) == [".collected.json"] + [
        f"s{i:02d}.zip" for i in range(1, 11) if i != 9
    ]

    # grade: the farm as it is, through the real grader, with the fake suite
    tests, rubric = write_suite(week / "suite")
    manifest = grade_all(
        subs,
        out,
        request=GradeRequest(tests_dir=tests, rubric_path=rubric),
        budget=120,
        jobs=2,
        stream=io.StringIO(),
    )
    assert manifest["assigned"] == [f"s{i:02d}" for i in range(1, 11) if i != 9]
    assert {s: r["status"] for s, r in records.read_records(out).items()} == dict.fromkeys(
        manifest["assigned"], "graded"
    )
    # the class report counts the roster's student with no submission, as collect recorded it
    assert farm(["report", str(out)]) == 0
    assert "1 missing (on the roster, no submission)" in (out / "report.html").read_text()

    # finalize: Canvas CSV with the points-possible row, penalties, overrides, a missing student
    common = [
        "--roster",
        r,
        "--policy",
        str(week / "late.toml"),
        "--overrides",
        str(week / "overrides.csv"),
        "--submissions",
        str(subs),
    ]
    assert farm(["finalize", str(out), *common, "--canvas-id", "4242"]) == 0
    assert (out / "staff/canvas.csv").read_text() == EXPECTED_CANVAS
    book = {row["student_id"]: row for row in csv.DictReader((out / "staff/final_gradebook.csv").open())}
    assert [
        (book[s]["raw"], book[s]["overrides"], book[s]["penalty"], book[s]["final"], book[s]["days_late"])
        for s in ("s02", "s03", "s04", "s05", "s06", "s09", "s10")
    ] == [
        ("60", "0", "0", "60", "0"),  # 11 minutes late: within the grace period
        ("60", "0", "12", "48", "2"),  # a day and a half late: two days, 20%
        ("100", "0", "100", "0", "5"),  # beyond the 3 days allowed
        ("100", "0", "0", "100", "0"),  # a day late, with a two-day extension
        ("70", "-5", "0", "65", "0"),  # +5 on test 2.1, -10 on the total
        ("0", "0", "0", "0", ""),  # missing
        ("100", "0", "10", "90", "1"),  # three hours late: one day
    ]
    assert book["s09"]["status"] == "missing" and book["s06"]["2.1"] == "5"
    assert "encode() was right on the fixture with the typo (TA Kim)" in book["s06"]["notes"]
    gs = list(csv.DictReader((out / "staff/gradescope.csv").open()))
    assert [(g["SID"], g["Total Score"], g["Status"]) for g in gs if g["SID"] in ("s03", "s09")] == [
        ("s03", "48", "Graded"),
        ("s09", "", "Missing"),
    ]
    assert next(g for g in gs if g["SID"] == "s03")["Lateness (H:M:S)"] == "36:01:00"

    # release before the due date: the after_due_date test 3.1 and the total stay hidden
    before, after = week / "feedback-before", week / "feedback"
    assert (
        farm(["release", str(out), *common, "--to", str(before), "--now", "2026-11-20T12:00:00-08:00"]) == 0
    )
    page = (before / "s01/feedback.html").read_text()
    assert "1.1 merge" in page and "3.1" not in page and "speed" not in page and 'id="final"' not in page
    assert "60 / 60" in page  # the points on the tests shown, nothing more
    assert "3.1" not in (before / "s01/feedback.md").read_text()

    # release after the last due date (the extension's): everything, with penalties and overrides
    assert farm(["release", str(out), *common, "--to", str(after), "--now", "2026-11-23T00:15:00-08:00"]) == 0
    assert sorted(p.name for p in after.iterdir()) == [f"s{i:02d}" for i in range(1, 11)]
    s03 = (after / "s03/feedback.html").read_text()
    assert 'id="final"><strong>48 / 100' in s03 and "−12 (2 day(s) late: -20%)" in s03 and "3.1 speed" in s03
    s06 = (after / "s06/feedback.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in s06 and "<script>" not in s06
    assert "5 / 30 (was 0)" in s06 and "TA Kim" in s06
    md = (after / "s06/feedback.md").read_text()
    assert "**Final score: 65 / 100**" in md and "test 2.1: +5" in md
    assert "No submission was received" in (after / "s09/feedback.md").read_text()

    # similarity: the two near-copies first, far above everyone else; the starter code (and the fake
    # package's harness) left out
    sim = week / "similarity"
    assert (
        farm(
            [
                "similarity",
                str(subs),
                "--starter",
                str(write_starter(week / "starter")),
                "--out",
                str(sim),
                "--threshold",
                "0",
            ]
        )
        == 0
    )
    ranked = list(csv.DictReader((sim / "similarity.csv").open()))
    assert (ranked[0]["a"], ranked[0]["b"]) == ("s07", "s08")
    assert float(ranked[0]["similarity"]) > 0.9
    assert all(float(p["similarity"]) < 0.5 for p in ranked[1:])
    html = (sim / "similarity.html").read_text()
    assert "<mark>" in html and "s07 and s08" in html

    # nothing above changed a grade
    assert (out / "staff/canvas.csv").read_text() == EXPECTED_CANVAS

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:  # the page renders on its own (no external resources), as a student opens it
        shot = week / "s03.png"
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--screenshot={shot}",
                "--window-size=900,1200",
                (after / "s03/feedback.html").as_uri(),
            ],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert shot.is_file() and shot.stat().st_size > 5000
