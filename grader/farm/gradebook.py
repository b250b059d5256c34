"""gradebook.csv and grades.json: one row per student, one column per graded test.

Both are pure functions of the records with timings left out, so the same class graded in one run
or in N merged shards gives byte-identical files.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from . import records


def test_column(test: dict) -> str:
    """'1.2 merge is left to right': the rubric number keeps columns in the assignment's order."""
    number = str(test.get("number") or "").strip()
    name = str(test.get("name") or "").strip() or "unnamed test"
    return f"{number} {name}".strip()


def columns(recs: dict[str, dict]) -> list[str]:
    seen: dict[str, None] = {}
    for rec in recs.values():
        for t in (rec.get("results") or {}).get("tests", []):
            seen.setdefault(test_column(t), None)
    return list(seen)


def rows(recs: dict[str, dict]) -> tuple[list[str], list[dict]]:
    cols = columns(recs)
    out = []
    for student in sorted(recs):
        rec = recs[student]
        points = {}
        for t in (rec.get("results") or {}).get("tests", []):
            points[test_column(t)] = float(t.get("score", 0.0))
        out.append(
            {
                "student": student,
                "status": rec["status"],
                "total": rec["score"] if rec["status"] == records.GRADED else None,
                "max_total": rec["max_score"],
                "points": points,
                "message": rec["message"],
            }
        )
    return cols, out


def _num(x) -> str:
    return "" if x is None else f"{x:g}"


def write(out: Path, recs: dict[str, dict]) -> None:
    cols, table = rows(recs)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student", "status", "total", *cols])
    for r in table:
        w.writerow([r["student"], r["status"], _num(r["total"]), *(_num(r["points"].get(c)) for c in cols)])
    records.write_text_atomic(out / "gradebook.csv", buf.getvalue())
    records.write_json_atomic(out / "grades.json", {"format": 1, "tests": cols, "students": table})


def load(out: Path) -> dict:
    return json.loads((out / "grades.json").read_text(encoding="utf-8"))
