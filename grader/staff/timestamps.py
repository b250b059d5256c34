"""Submission and due times: always with a UTC offset, so a late penalty never depends on the
time zone of the machine that computes it."""

from __future__ import annotations

import re
from datetime import datetime

from ..errors import StaffFileError

# Gradescope's export writes Ruby times: "2026-11-20 23:05:10.123456000 -08:00".
_RUBY = re.compile(r"^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d+))?\s*([+-]\d\d:?\d\d|Z)$")


def parse_time(text: str, where: str) -> datetime:
    """An aware datetime from ISO 8601 (or Gradescope's export format); naive times are refused."""
    s = str(text).strip()
    m = _RUBY.match(s)
    if m:
        day, clock, frac, tz = m.groups()
        s = f"{day}T{clock}{'.' + frac[:6] if frac else ''}{'+00:00' if tz == 'Z' else tz}"
    try:
        t = datetime.fromisoformat(s)
    except ValueError:
        raise StaffFileError(f"{where}: {text!r} is not a date and time (ISO 8601)") from None
    if t.tzinfo is None:
        raise StaffFileError(f"{where}: {text!r} has no UTC offset (write e.g. 2026-11-20T23:59:00-08:00)")
    return t
