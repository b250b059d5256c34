"""What the staff tools take for a grade from the farm's output: records graded through the real
farm with the fake suite, then read by `read_class` and turned into final grades and exports."""

from __future__ import annotations

import io
import json

from instructor_fakes import HANG_BUDGET, make_submission
from staff_fakes import write_suite

from grader.farm.batch import MANIFEST, grade_all
from grader.request import GradeRequest
from grader.staff.class_results import read_class
from grader.staff.class_roster import Roster, Student
from grader.staff.final_grades import compute
from grader.staff.lms_export import canvas_csv, gradescope_csv


def test_only_current_complete_records_are_grades(tmp_path):
    tests, rubric = write_suite(tmp_path / "suite")
    subs, out = tmp_path / "subs", tmp_path / "out"
    make_submission(subs, "ann", points=("1.1", "1.2"))
    make_submission(subs, "bob", points=("1.1",), hang="1.2")  # never returns from 1.2
    make_submission(subs, "cat", points=("1.1", "2.1"))
    make_submission(subs, "dan", points=("1.1", "1.2", "2.1", "3.1"))
    make_submission(subs, "eve", points=("2.1",))
    run = {"request": GradeRequest(tests_dir=tests, rubric_path=rubric), "stream": io.StringIO()}
    grade_all(subs, out, only=["bob"], budget=HANG_BUDGET, **run)  # his endless loop burns it all
    grade_all(subs, out, only=["ann", "cat", "eve"], budget=120, jobs=2, **run)
    grade_all(subs, out, only=["dan"], tests="test_merge", budget=120, **run)  # 1.1 only
    make_submission(subs, "cat", points=("1.1",))  # a new upload nobody has graded
    grade_all(subs, out, only=["eve"], keep_stale=True, budget=120, **run)  # cat is not rerun
    # a regrade of eve that was killed before it committed: the manifest still names her
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["pending"] = {"run": "killed", "students": {"eve": None}}
    (out / MANIFEST).write_text(json.dumps(manifest))

    got = read_class(out)
    assert {s: (g.status, g.score) for s, g in got.items()} == {
        "ann": ("graded", 30.0),
        "bob": ("timed_out", 10.0),  # 1.1 finished before the budget ran out
        "cat": ("stale", None),
        "dan": ("incomplete", None),
        "eve": ("interrupted", None),
    }
    assert "1.2" in got["bob"].message and "budget" in got["bob"].message
    assert "2.1 3.1" in got["dan"].message and [t.number for t in got["dan"].tests] == ["1.1"]
    assert [t.visibility for t in got["ann"].tests] == ["visible"] * 3 + ["after_due_date"]

    roster = Roster(tuple(Student(s, s.title(), f"{s}@uni.example", lms_id=s) for s in got))
    grades, strays = compute(got, roster)
    assert strays == []
    assert [(g.student.student_id, g.has_grade, g.final) for g in grades] == [
        ("ann", True, 30.0),
        ("bob", True, 10.0),
        ("cat", False, 0.0),
        ("dan", False, 0.0),
        ("eve", False, 0.0),
    ]
    canvas = canvas_csv(grades, "BPE").splitlines()[2:]
    assert [line.rsplit(",", 1)[1] for line in canvas] == ["30", "10", "", "", ""]
    # Gradescope's Status holds its own values only: the timed-out mark is in final_gradebook.csv
    status = [line.split(",")[7] for line in gradescope_csv(grades).splitlines()[1:]]
    assert status == ["Graded", "Graded", "Ungraded", "Ungraded", "Ungraded"]
