"""Manual adjustments, kept in their own CSV and applied at report time, so they survive regrades.

    student,target,points,reason,who
    s004,2.1,+5,"encode() was right; the test's fixture had a typo",TA Kim
    s006,total,-10,"academic integrity: shared part 3",Prof. Lee

`target` is a test's rubric number or `total`; `points` are added (negative: taken off). A test
never goes below 0 or above its maximum.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..errors import StaffFileError

COLUMNS = ("student", "target", "points", "reason", "who")
TOTAL = "total"


@dataclass(frozen=True)
class Override:
    student: str
    target: str  # a test number, or TOTAL
    points: float
    reason: str
    who: str


def load(path: Path) -> list[Override]:
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise StaffFileError(f"{where}: cannot read the overrides ({e})") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip() for h in reader.fieldnames or []]
    if sorted(header) != sorted(COLUMNS):
        raise StaffFileError(f"{where}: the overrides need exactly the columns {', '.join(COLUMNS)}")
    out = []
    for n, row in enumerate(reader, start=2):
        row = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
        try:
            points = float(row["points"])
        except ValueError:
            raise StaffFileError(f"{where}:{n}: points {row['points']!r} is not a number") from None
        if not row["student"] or not row["target"]:
            raise StaffFileError(f"{where}:{n}: every override names a student and a target")
        if not row["reason"] or not row["who"]:
            raise StaffFileError(f"{where}:{n}: every override says why (reason) and who made it (who)")
        out.append(
            Override(
                row["student"],
                row["target"].lower() if row["target"].lower() == TOTAL else row["target"],
                points,
                row["reason"],
                row["who"],
            )
        )
    return out
