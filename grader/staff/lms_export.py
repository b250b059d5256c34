"""Grades in the files LMSs import, and the staff gradebook with every step of each grade.

- Canvas's gradebook import: the columns of Canvas's own export (`Student`, `ID`, `SIS User ID`,
  `SIS Login ID`, `Section`, then `Assignment name (assignment id)`), and under the header the
  `Points Possible` row Canvas writes and reads back.
- A Gradescope-style scores CSV: `Name`, `SID`, `Email`, `Total Score`, `Max Points`, `Status`,
  `Submission Time`, `Lateness (H:M:S)`.
- `final_gradebook.csv`: raw score, overrides, penalty and final score apart, with the reasons.
"""

from __future__ import annotations

import csv
import io

from .final_grades import MARKED, MISSING, FinalGrade


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
        return "0:00:00"
    secs = int((g.submitted_at - g.lateness.due).total_seconds())
    return f"{secs // 3600}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def _graded(g: FinalGrade) -> str:
    """'Graded', or 'Graded (timed_out)' for a grade that carries a mark."""
    return f"Graded ({g.status})" if g.status in MARKED else "Graded"


def gradescope_csv(grades: list[FinalGrade]) -> str:
    rows = [
        ["Name", "SID", "Email", "Total Score", "Max Points", "Status", "Submission Time", "Lateness (H:M:S)"]
    ]
    for g in grades:
        missing = g.status == MISSING
        rows.append(
            [
                g.student.name,
                g.student.student_id,
                g.student.email,
                _num(g.final) if g.has_grade and not missing else "",
                _num(g.max_score),
                "Missing" if missing else _graded(g) if g.has_grade else "Ungraded",
                g.submitted_at.isoformat() if g.submitted_at else "",
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
        by = {t.number: t.score for t in g.tests}
        notes = [f"{o.target} {o.points:+g}: {o.reason} ({o.who})" for o in g.overrides]
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
                _num(g.raw),
                _num(g.adjustment),
                _num(g.penalty),
                _num(g.final),
                _num(g.max_score),
                *(_num(by[n]) if n in by else "" for n in numbers),
                "; ".join(notes),
            ]
        )
    return _write(rows)
