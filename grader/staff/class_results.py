"""The one reader of the farm's per-student output that the staff tools use.

Every staff tool sees the farm only through `read_class`, so a change in the farm's records is
adapted here, in one place. It reads the records with the farm's own reader
(grader/farm/records.py) and judges them with the farm's own rules (grader/farm/batch.py) against
the kit, the rubric and the uploads as they are today (grader/farm/current.py), so a record the
farm would regrade is never taken for a grade.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..farm import current, records
from ..farm.batch import missing_tests, read_manifest, stale_tests
from ..terms import Visibility

GRADED = records.GRADED
UNREADABLE = records.UNREADABLE
TIMED_OUT = records.TIMED_OUT
INTERRUPTED = records.INTERRUPTED
GRADER_ERROR = records.GRADER_ERROR
# Not statuses of the farm's records: what the farm's gradebook marks INCOMPLETE and STALE, and an
# upload in the submissions folder that has no record yet.
INCOMPLETE = "incomplete"
STALE = "stale"
NOT_GRADED = "not_graded"
# The statuses whose recorded points are the submission's score (a timed-out run scores the tests
# that finished, as the farm's gradebook counts it).
SCORED = (GRADED, TIMED_OUT)


@dataclass(frozen=True)
class ResultRow:
    number: str
    name: str
    score: float
    max_score: float
    status: str
    output: str
    visibility: str


@dataclass(frozen=True)
class Graded:
    """One student's outcome as the farm recorded it; `score` is None unless the status is SCORED."""

    student: str
    status: str
    score: float | None
    max_score: float | None
    message: str
    tests: list[ResultRow] = field(default_factory=list)


def _tests(tests: list[dict]) -> list[ResultRow]:
    return [
        ResultRow(
            number=str(t.get("number") or "").strip(),
            name=str(t.get("name") or "").strip() or "unnamed test",
            score=float(t.get("score", 0.0)),
            max_score=float(t.get("max_score", 0.0)),
            status=str(t.get("status") or ""),
            output=str(t.get("output") or ""),
            visibility=str(t.get("visibility") or Visibility.VISIBLE),
        )
        for t in tests
        if isinstance(t, dict)
    ]


def _judge(student: str, rec: dict, manifest: dict | None) -> tuple[str, str]:
    """(status, message) of one record, with what the output's manifest says about it.

    A regrade an interrupted run had set out to do is `interrupted` (the points are the previous
    grading's); a record with tests graded by another kit or from another upload than the one in
    the submissions folder is `stale`; a graded record missing rubric tests (graded by `--tests`
    only) is `incomplete`. None of those is a grade until the farm is rerun.
    """
    status, message = rec["status"], str(rec.get("message") or "")
    pending = (manifest or {}).get("pending") or {}
    if student in pending.get("students", {}) and rec.get("run") != pending.get("run"):
        return INTERRUPTED, "a regrade was interrupted; rerun the farm to finish it"
    if status not in (*SCORED, UNREADABLE):
        return status, message
    kit = (manifest or {}).get("kit") or rec.get("kit")
    upload = (manifest or {}).get("submissions", {}).get(student) or rec.get("submission")
    numbers = [t["number"] for t in (manifest or {}).get("rubric", [])]
    stale = stale_tests(rec, kit, upload, numbers)
    if stale or rec.get("submission") != upload:
        which = f"tests {' '.join(stale)}" if rec["tests"] and stale else "the result"
        return STALE, f"{which} graded by another kit or from another upload; rerun the farm"
    if status == GRADED:
        if manifest:
            missing = " ".join(missing_tests(rec, numbers))
        else:  # no manifest: the record's own total says whether every rubric test is there
            have = sum(float(t.get("max_score", 0.0)) for t in rec["tests"])
            missing = "some rubric tests" if have < float(rec.get("max_score") or 0.0) else ""
        if missing:
            return INCOMPLETE, f"not graded yet: {missing}; rerun the farm without --tests"
    return status, message


def read_class(out: Path) -> dict[str, Graded]:
    """Every student with a complete record under `out/students/<id>/record.json`, by student id.

    A student's status is the farm's (graded, unreadable_submission, timed_out, interrupted,
    grader_error), or `interrupted`, `stale` or `incomplete` when the output says the recorded
    points are not the grade of today's kit on today's upload (see `_judge`). Only a SCORED status
    carries a score; grader/staff/final_grades.py decides which statuses export as a grade.
    """
    out = Path(out)
    manifest = read_manifest(out)
    if manifest is not None:
        manifest = current.today(out, manifest)
    found: dict[str, Graded] = {}
    for student, rec in records.read_records(out).items():
        student = str(student)
        status, message = _judge(student, rec, manifest)
        found[student] = Graded(
            student=student,
            status=status,
            score=float(rec.get("score") or 0.0) if status in SCORED else None,
            max_score=float(rec["max_score"]) if rec.get("max_score") is not None else None,
            message=message,
            tests=_tests(rec["tests"]),
        )
    # An upload the farm has not graded (or whose first grading was interrupted) is no grade, and
    # never a missing submission's 0.
    pending = ((manifest or {}).get("pending") or {}).get("students", {})
    for student in (manifest or {}).get("roster", []):
        if student not in found:
            interrupted = student in pending
            found[student] = Graded(
                student=student,
                status=INTERRUPTED if interrupted else NOT_GRADED,
                score=None,
                max_score=None,
                message=(
                    "its grading was interrupted; rerun the farm to finish it"
                    if interrupted
                    else "submitted, not graded yet; run the farm"
                ),
            )
    return found
