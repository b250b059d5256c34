"""gradebook.csv and grades.json: one row per student of the output, one column per rubric test.

Rows come in roster order (case-insensitive), test columns in rubric order, and every rubric test
has its column whatever was graded. A row says how its grade came about: status, the reason when
it is not `graded`, the seconds it took, the isolation it ran under, the kit fingerprint it was
graded by, and which of its tests are stale (graded by another kit or submission than today's).
A student an interrupted run had set out to grade shows as `interrupted` until regraded, and a
graded student whose record lacks rubric tests (graded by `--tests` only) says INCOMPLETE.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ..atomic import write_json_atomic, write_text_atomic
from . import records
from .batch import stale_tests
from .roster import roster_key


def test_column(test: dict) -> str:
    """'1.2 merge is left to right': the rubric number keeps columns in the assignment's order."""
    number = str(test.get("number") or "").strip()
    name = str(test.get("name") or "").strip() or "unnamed test"
    return f"{number} {name}".strip()


def columns(manifest: dict) -> list[str]:
    return [test_column(t) for t in manifest["rubric"]]


def row(manifest: dict, student: str, rec: dict | None, older: int | None = None) -> dict:
    """`older`: the format of the student's record when it is of an older format (read as none)."""
    pending = manifest.get("pending") or {}
    interrupted = student in pending.get("students", {}) and (rec is None or rec.get("run") != pending["run"])
    if rec is None:
        status = records.INTERRUPTED if interrupted else "not_graded"
        reason = "grading was interrupted; rerun to finish it" if interrupted else "not graded yet"
        if older is not None and not interrupted:
            reason = (
                f"its record is of an older format ({older}; this farm writes {records.FORMAT}): "
                "rerun `farm grade` to regrade it whole"
            )
        return {
            "student": student,
            "status": status,
            "total": None,
            "max_total": sum(t["points"] for t in manifest["rubric"]),
            "stale": [],
            "seconds": None,
            "isolation": "",
            "kit": "",
            "reason": reason,
            "points": {},
        }
    status, reason = rec["status"], rec["message"]
    if interrupted:
        status = records.INTERRUPTED
        reason = "a regrade was interrupted (rerun to finish it); the points shown are the previous grading's"
    by_number = {t["number"]: t for t in rec["tests"]}
    points = {
        test_column(t): float(by_number[t["number"]]["score"])
        for t in manifest["rubric"]
        if t["number"] in by_number
    }
    counted = status in (records.GRADED, records.TIMED_OUT, records.UNREADABLE)
    missing = [t["number"] for t in manifest["rubric"] if t["number"] not in by_number]
    if status == records.GRADED and missing:  # graded by --tests only: the total is not the grade yet
        reason = f"INCOMPLETE: not graded yet: {' '.join(missing)} (rerun without --tests)"
    return {
        "student": student,
        "status": status,
        "total": (0.0 if status == records.UNREADABLE else sum(points.values())) if counted else None,
        "max_total": sum(t["points"] for t in manifest["rubric"]),
        "stale": stale_tests(
            rec,
            manifest["kit"],
            manifest.get("submissions", {}).get(student),
            [t["number"] for t in manifest["rubric"]],
        ),
        "seconds": rec["timing"]["seconds"],
        "isolation": rec.get("isolation", ""),
        "kit": rec.get("kit", ""),
        "reason": reason,
        "points": points,
    }


def rows(
    manifest: dict, recs: dict[str, dict], older: dict[str, int] | None = None
) -> tuple[list[str], list[dict]]:
    students = sorted(manifest["assigned"], key=roster_key)
    older = older or {}
    return columns(manifest), [row(manifest, s, recs.get(s), older.get(s)) for s in students]


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def write(out: Path, manifest: dict, recs: dict[str, dict]) -> list[dict]:
    """Write both files; returns the rows (for the terminal summary)."""
    cols, table = rows(manifest, recs, records.older_records(out))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student", "status", "total", "stale", "seconds", "isolation", "kit", "reason", *cols])
    for r in table:
        w.writerow(
            [
                r["student"],
                r["status"],
                _num(r["total"]),
                ("STALE: " + " ".join(r["stale"])) if r["stale"] else "",
                _num(r["seconds"]),
                r["isolation"],
                r["kit"],
                r["reason"],
                *(_num(r["points"].get(c)) for c in cols),
            ]
        )
    write_text_atomic(out / "gradebook.csv", buf.getvalue())
    # JSON objects are written with sorted keys ("2.10" before "2.2"): points go as [test, points]
    # pairs, in rubric order.
    students = [dict(r, points=[[c, r["points"][c]] for c in cols if c in r["points"]]) for r in table]
    write_json_atomic(
        out / "grades.json",
        {"format": records.FORMAT, "kit": manifest["kit"], "tests": cols, "students": students},
    )
    return table


def load(out: Path) -> dict:
    return json.loads((out / "grades.json").read_text(encoding="utf-8"))
