"""The one reader of the farm's per-student output that the staff tools use.

Every staff tool sees the farm only through `read_class`, so a change in the farm's records is
adapted here, in one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

GRADED = "graded"


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
    """One student's outcome as the farm recorded it (status other than "graded": no score)."""

    student: str
    status: str
    score: float | None
    max_score: float | None
    message: str
    tests: list[ResultRow] = field(default_factory=list)


def _tests(results: dict | None) -> list[ResultRow]:
    out = []
    for t in (results or {}).get("tests", []) or []:
        out.append(
            ResultRow(
                number=str(t.get("number") or "").strip(),
                name=str(t.get("name") or "").strip() or "unnamed test",
                score=float(t.get("score", 0.0)),
                max_score=float(t.get("max_score", 0.0)),
                status=str(t.get("status") or ""),
                output=str(t.get("output") or ""),
                visibility=str(t.get("visibility") or "visible"),
            )
        )
    return out


def read_class(out: Path) -> dict[str, Graded]:
    """Every student with a complete record under `out/students/<id>/record.json`, by student id.

    The test results come from the record itself, or from `results.json` beside it when the record
    does not carry them.
    """
    found: dict[str, Graded] = {}
    root = Path(out) / "students"
    if not root.is_dir():
        return found
    for d in sorted(root.iterdir()):
        try:
            rec = json.loads((d / "record.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(rec, dict) or "student" not in rec or "status" not in rec:
            continue
        results = rec.get("results")
        if results is None and (d / "results.json").is_file():
            try:
                results = json.loads((d / "results.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                results = None
        graded = rec["status"] == GRADED
        found[str(rec["student"])] = Graded(
            student=str(rec["student"]),
            status=str(rec["status"]),
            score=float(rec["score"]) if graded and rec.get("score") is not None else None,
            max_score=float(rec["max_score"]) if rec.get("max_score") is not None else None,
            message=str(rec.get("message") or ""),
            tests=_tests(results if isinstance(results, dict) else None),
        )
    return found
