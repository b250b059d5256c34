"""Grades in the files LMSs import, and the staff gradebook with every step of each grade.

- Canvas's gradebook import: the columns of Canvas's own export (`Student`, `ID`, `SIS User ID`,
  `SIS Login ID`, `Section`, then `Assignment name (assignment id)`), and under the header the
  `Points Possible` row Canvas writes and reads back.
- A Gradescope-style scores CSV, with the columns of Gradescope's own per-assignment export
  (Download Grades): `First Name`, `Last Name`, `SID`, `Email`, `Sections`, `Total Score`,
  `Max Points`, `Status` (`Graded`, `Ungraded` or `Missing`), `Submission ID`, `Submission Time`
  (`2026-11-20 09:00:00 -0800`) and `Lateness (H:M:S)` (`01:00:00`). The names and values were
  checked against several public readers and test fixtures of real exports, not one example. The
  roster has one name: "Last, First" is split at the comma, "First Last" at the last space. The
  kit knows no Gradescope submission id, so that column stays empty; a grade the grader marked
  (timed out) says so in final_gradebook.csv, since `Status` holds only Gradescope's values.
- `final_gradebook.csv`: raw score, overrides, penalty and final score apart, with the reasons.
"""

from __future__ import annotations

import csv
import io

from .final_grades import MISSING, FinalGrade


def _num(x: float) -> str:
    return f"{round(x, 2):g}"


def _write(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def canvas_csv(grades: list[FinalGrade], assignment: str, assignment_id: str = "") -> str:
    column = f"{assignment} ({assignment_id})" if assignment_id else assignment
    possible = max((g.max_score for g in grades), default=0.0)
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column],
        ["    Points Possible", "", "", "", "", _num(possible)],
    ]
    for g in grades:
        s = g.student
        score = _num(g.final) if g.has_grade else ""  # a grader error is no grade: never a silent 0
        rows.append([s.name, s.lms_id, s.student_id, s.sis_login_id or s.email, s.section, score])
    return _write(rows)


def _lateness(g: FinalGrade) -> str:
    if g.submitted_at is None or g.lateness is None or g.submitted_at <= g.lateness.due:
        return "00:00:00"
    secs = int((g.submitted_at - g.lateness.due).total_seconds())
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def _first_last(name: str) -> tuple[str, str]:
    if "," in name:
        last, first = name.split(",", 1)
        return first.strip(), last.strip()
    first, _, last = name.strip().rpartition(" ")
    return (first, last) if first else (last, "")


GRADESCOPE_COLUMNS = [
    "First Name",
    "Last Name",
    "SID",
    "Email",
    "Sections",
    "Total Score",
    "Max Points",
    "Status",
    "Submission ID",
    "Submission Time",
    "Lateness (H:M:S)",
]


def gradescope_csv(grades: list[FinalGrade]) -> str:
    rows = [GRADESCOPE_COLUMNS]
    for g in grades:
        missing = g.status == MISSING
        rows.append(
            [
                *_first_last(g.student.name),
                g.student.student_id,
                g.student.email,
                g.student.section,
                _num(g.final) if g.has_grade and not missing else "",
                _num(g.max_score),
                "Missing" if missing else "Graded" if g.has_grade else "Ungraded",
                "",
                g.submitted_at.strftime("%Y-%m-%d %H:%M:%S %z") if g.submitted_at else "",
                "" if missing else _lateness(g),
            ]
        )
    return _write(rows)


def staff_gradebook_csv(grades: list[FinalGrade]) -> str:
    numbers: dict[str, None] = {}
    for g in grades:
        for t in g.tests:
            numbers.setdefault(t.number, None)
    head = [
        "student_id",
        "name",
        "status",
        "submitted_at",
        "days_late",
        "raw",
        "overrides",
        "penalty",
        "final",
        "max",
    ]
    rows = [head + list(numbers) + ["notes"]]
    for g in grades:
        # A result that is no grade (stale, interrupted, incomplete) shows no points as if they were.
        by = {t.number: t.score for t in g.tests} if g.has_grade else {}
        notes = [f"{o.target} {o.points:+g}: {o.reason} ({o.who})" for o in g.overrides]
        if g.above_max_note:
            notes.append(g.above_max_note)
        if g.lateness and g.lateness.reason:
            notes.append(g.lateness.reason)
        if g.message:
            notes.append(g.message)
        rows.append(
            [
                g.student.student_id,
                g.student.name,
                g.status,
                g.submitted_at.isoformat() if g.submitted_at else "",
                str(g.lateness.days_late) if g.lateness else "",
                *(_num(x) if g.has_grade else "" for x in (g.raw, g.adjustment, g.penalty, g.final)),
                _num(g.max_score),
                *(_num(by[n]) if n in by else "" for n in numbers),
                "; ".join(notes),
            ]
        )
    return _write(rows)
