"""Raw score, overrides, late penalty, final score: the grade of each student, computed at report time.

The order is fixed and shown to students: overrides adjust the raw score, the adjusted score is
capped at the maximum (unless the course allows a bonus above it: `allow_above_max`, the
`--allow-above-max` setting, shown wherever the grade is), the late penalty is a percentage of that
adjusted score, and the final score is never below 0. Roster students the farm
has no record for are "missing" with 0; students the farm graded who are not on the roster are
returned apart and never exported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..errors import StaffFileError
from .class_results import SCORED, TIMED_OUT, UNREADABLE, Graded
from .class_roster import Roster, Student
from .late_policy import Lateness, LatePolicy
from .overrides import TOTAL, Override

MISSING = "missing"
# A grade stands for these: graded; an unreadable upload and a missing one (0); a run that overran
# its budget, scored on the tests that finished, as the farm counts it (the budget is a wide margin
# over the reference: only a runaway submission reaches it), and marked TIMED_OUT wherever it is
# exported. Any other status is no grade and is exported blank, never as a silent 0 or as points
# that are not today's: grader_error and interrupted (rerun the farm), stale (points from another
# kit or another upload) and incomplete (graded by `--tests` only).
FINAL_STATUSES = (*SCORED, UNREADABLE, MISSING)
MARKED = (TIMED_OUT,)  # a grade, with a mark beside it (final_gradebook.csv, the finalize summary)


@dataclass(frozen=True)
class GradeLine:
    number: str
    name: str
    raw: float
    score: float  # after overrides
    max_score: float
    status: str
    output: str
    visibility: str


@dataclass(frozen=True)
class FinalGrade:
    student: Student
    status: str  # the farm's status, or MISSING
    raw: float
    adjustment: float  # what the overrides changed, in points
    penalty: float
    final: float
    max_score: float
    submitted_at: datetime | None
    lateness: Lateness | None
    tests: list[GradeLine] = field(default_factory=list)
    overrides: list[Override] = field(default_factory=list)
    message: str = ""
    over_max: float = 0.0  # points the adjustments reached above the maximum
    capped: bool = True  # those points were cut (False: the course allows a bonus above the maximum)

    @property
    def has_grade(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def adjusted(self) -> float:
        return self.raw + self.adjustment

    @property
    def above_max_note(self) -> str:
        """One line on the maximum, for the gradebook and the student's page ("" when not reached)."""
        if not self.over_max:
            return ""
        if self.capped:
            reached = f"{self.max_score + self.over_max:g}"
            return f"capped at the maximum, {self.max_score:g}: the adjustments came to {reached}"
        return f"includes {self.over_max:g} bonus point(s) above the maximum of {self.max_score:g}"


def _clamp(x: float, lo: float, hi: float) -> float:
    return min(hi, max(lo, x))


def _one(
    student: Student,
    g: Graded | None,
    class_max: float,
    policy: LatePolicy | None,
    mine: list[Override],
    submitted: datetime | None,
    allow_above_max: bool,
) -> FinalGrade:
    if g is None:
        if mine:
            raise StaffFileError(f"overrides: {student.student_id} has no submission to adjust")
        return FinalGrade(
            student, MISSING, 0.0, 0.0, 0.0, 0.0, class_max, None, None, overrides=[], message="no submission"
        )
    by_test = {}
    for o in mine:
        if o.target != TOTAL:
            by_test[o.target] = by_test.get(o.target, 0.0) + o.points
    numbers = {t.number for t in g.tests}
    for o in mine:
        if o.target != TOTAL and o.target not in numbers:
            raise StaffFileError(
                f"overrides: {student.student_id} has no test {o.target!r} (tests: {', '.join(sorted(numbers))})"
            )
    tests = [
        GradeLine(
            t.number,
            t.name,
            t.score,
            _clamp(t.score + by_test.get(t.number, 0.0), 0.0, t.max_score),
            t.max_score,
            t.status,
            t.output,
            t.visibility,
        )
        for t in g.tests
    ]
    max_score = g.max_score if g.max_score is not None else class_max
    if g.status not in SCORED:
        raw, adjusted = 0.0, 0.0
    else:
        raw = g.score or 0.0
        adjusted = max(
            0.0, raw + sum(t.score - t.raw for t in tests) + sum(o.points for o in mine if o.target == TOTAL)
        )
    over_max = round(max(0.0, adjusted - max_score), 4)
    if not allow_above_max:
        adjusted = min(adjusted, max_score)
    lateness = policy.lateness(student.student_id, submitted) if policy else None
    penalty = lateness.penalty(adjusted) if lateness else 0.0
    return FinalGrade(
        student,
        g.status,
        raw,
        round(adjusted - raw, 4),
        penalty,
        round(max(0.0, adjusted - penalty), 4),
        max_score,
        submitted,
        lateness,
        tests,
        list(mine),
        g.message,
        over_max,
        not allow_above_max,
    )


def compute(
    results: dict[str, Graded],
    roster: Roster,
    *,
    policy: LatePolicy | None = None,
    overrides: list[Override] = (),
    times: dict[str, datetime | None] | None = None,
    allow_above_max: bool = False,
) -> tuple[list[FinalGrade], list[str]]:
    """(one grade per roster student in roster order, graded students not on the roster).

    `allow_above_max`: overrides may take a total above the maximum (a bonus); otherwise the
    adjusted score is capped there, and the grade says so."""
    ids = roster.by_id()
    strays = [o.student for o in overrides if o.student not in ids]
    if strays:
        raise StaffFileError(f"overrides: {', '.join(sorted(set(strays)))} not on the roster")
    class_max = max((g.max_score or 0.0 for g in results.values()), default=0.0)
    times = times or {}
    grades = [
        _one(
            s,
            results.get(s.student_id),
            class_max,
            policy,
            [o for o in overrides if o.student == s.student_id],
            times.get(s.student_id) or s.submitted_at,
            allow_above_max,
        )
        for s in roster.students
    ]
    return grades, sorted(set(results) - set(ids))
