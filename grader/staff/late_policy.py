"""The late policy, declared in one TOML file and applied at report time (no regrade needed).

    due = 2026-11-20T23:59:00-08:00   # with its UTC offset
    grace_minutes = 15                # up to this late counts as on time
    penalty_per_day = 10              # percent of the score, per day or part of a day late
    max_late_days = 5                 # later than this: the score is 0 (leave out: no limit)
    slip_days = 1                     # late days each student may use free of penalty

    [extensions]                      # per student id: extra days, or a new due date
    s003 = 2
    s007 = 2026-11-23T12:00:00-08:00

Days late are counted from the student's own due date, rounded up to whole days, once a
submission is past the grace period.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from ..errors import StaffFileError
from .timestamps import parse_time

_KEYS = {"due", "grace_minutes", "penalty_per_day", "max_late_days", "slip_days", "extensions"}


@dataclass(frozen=True)
class Lateness:
    days_late: int  # whole days past the student's due date (0: on time)
    slip_days_used: int
    percent: float  # of the score taken off
    due: datetime  # the student's own due date
    reason: str  # one line for the gradebook and the student's page

    def penalty(self, score: float) -> float:
        return round(score * self.percent / 100.0, 4)


@dataclass(frozen=True)
class LatePolicy:
    due: datetime
    grace: timedelta = timedelta(0)
    penalty_per_day: float = 0.0
    max_late_days: int | None = None
    slip_days: int = 0
    extensions: dict[str, datetime] = field(default_factory=dict)

    def due_for(self, student: str) -> datetime:
        return self.extensions.get(student, self.due)

    def last_due(self) -> datetime:
        """The latest due date of anyone: hidden tests stay hidden until then."""
        return max([self.due, *self.extensions.values()])

    def lateness(self, student: str, submitted: datetime | None) -> Lateness:
        due = self.due_for(student)
        if submitted is None:
            return Lateness(0, 0, 0.0, due, "no submission time known: late policy not applied")
        if submitted <= due + self.grace:
            return Lateness(0, 0, 0.0, due, "")
        days = math.ceil((submitted - due) / timedelta(days=1))
        slip = min(days, self.slip_days)
        if self.max_late_days is not None and days > self.max_late_days:
            return Lateness(
                days, slip, 100.0, due, f"{days} day(s) late, beyond the {self.max_late_days} allowed"
            )
        percent = min(100.0, self.penalty_per_day * (days - slip))
        used = f", {slip} slip day(s) used" if slip else ""
        return Lateness(days, slip, percent, due, f"{days} day(s) late{used}: -{percent:g}%")


def _number(v: object, where: str, *, integer: bool = False):
    if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or (integer and not isinstance(v, int)):
        raise StaffFileError(
            f"{where}: expected a non-negative {'whole ' if integer else ''}number, got {v!r}"
        )
    return v


def _time(v: object, where: str) -> datetime:
    if isinstance(v, datetime):
        if v.tzinfo is None:
            raise StaffFileError(f"{where}: {v} has no UTC offset (write e.g. 2026-11-20T23:59:00-08:00)")
        return v
    if isinstance(v, str):
        return parse_time(v, where)
    raise StaffFileError(f"{where}: expected a date and time, got {v!r}")


def load(path: Path) -> LatePolicy:
    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise StaffFileError(f"{where}: cannot read the late policy ({e})") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise StaffFileError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})"
        )
    if "due" not in data:
        raise StaffFileError(f"{where}: the late policy needs a `due` date")
    due = _time(data["due"], f"{where}: due")
    extensions = {}
    ext = data.get("extensions", {})
    if not isinstance(ext, dict):
        raise StaffFileError(f"{where}: [extensions] must be a table of student id = days or date")
    for sid, v in ext.items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            extensions[sid] = due + timedelta(days=_number(v, f"{where}: extensions.{sid}"))
        else:
            extensions[sid] = _time(v, f"{where}: extensions.{sid}")
    mld = data.get("max_late_days")
    return LatePolicy(
        due=due,
        grace=timedelta(minutes=_number(data.get("grace_minutes", 0), f"{where}: grace_minutes")),
        penalty_per_day=float(_number(data.get("penalty_per_day", 0), f"{where}: penalty_per_day")),
        max_late_days=None if mld is None else _number(mld, f"{where}: max_late_days", integer=True),
        slip_days=_number(data.get("slip_days", 0), f"{where}: slip_days", integer=True),
        extensions=extensions,
    )
