"""How long the grader takes: one full grade of the reference, and a class graded in batch.

Both go through the same commands an instructor types, so the figures include everything a real
run pays for (sandbox start-up, the worker, every graded test).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from bench import measure

ROOT = measure.ROOT


def grader_ready() -> str | None:
    """Why the grader cannot be measured yet, or None."""
    if not (ROOT / "grader" / "__main__.py").is_file():
        return "the grader has no command line yet (grader/__main__.py is missing)"
    return None


FARM = ["-m", "grader.farm", "grade"]


def farm_ready() -> str | None:
    """Why batch grading cannot be measured, or None."""
    if not (ROOT / "grader" / "farm" / "__main__.py").is_file():
        return "the batch command `python -m grader.farm grade` does not exist yet"
    return None


def run_grading(*, runs: int, farm_students: int, jobs: int, timeout_s: float) -> dict:
    section: dict = {"runs": runs}
    why_not = grader_ready()
    if why_not:
        section["note"] = why_not
        return section
    times, scores = [], []
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        for i in range(runs):
            out = Path(tmp) / f"run{i}"
            outcome, _status, _stderr = measure.run_process(
                [sys.executable, "-m", "grader", "grade", "solution", "--out", str(out)], timeout_s=timeout_s
            )
            if not outcome.ok:
                section["error"] = f"grading the reference failed: {outcome.error}"
                break
            times.append(outcome.wall_s)
            try:
                scores.append(json.loads((out / "results.json").read_text())["score"])
            except (OSError, ValueError, KeyError):
                section["error"] = "grading the reference wrote no readable results.json"
                break
    if times:
        section.update(seconds=measure.median(times), all_seconds=times, score=scores[-1])
    section["farm"] = run_farm(farm_students, jobs, timeout_s)
    return section


def run_farm(students: int, jobs: int, timeout_s: float) -> dict:
    """Grade `students` copies of the reference as a class, `jobs` at a time, and count how
    many were actually graded (a farm that fails fast must not look fast)."""
    why_not = farm_ready()
    if why_not:
        return {"note": f"not measured: {why_not}"}
    with tempfile.TemporaryDirectory(prefix="bench-farm-") as tmp:
        subs, out = Path(tmp) / "submissions", Path(tmp) / "out"
        for k in range(students):
            shutil.copytree(
                ROOT / "solution" / "bpe",
                subs / f"student{k:02d}" / "bpe",
                ignore=shutil.ignore_patterns("__pycache__"),
            )
        cmd = [sys.executable, *FARM, str(subs), "--out", str(out), "--jobs", str(jobs)]
        outcome, _, _ = measure.run_process(cmd, timeout_s=timeout_s * students)
        graded = _graded(out)
    if not outcome.ok:
        return {"note": f"not measured: `python -m grader.farm grade` failed: {outcome.error}"}
    if graded < students:
        return {"note": f"not measured: the farm graded {graded} of {students} submissions"}
    return {
        "students": students,
        "jobs": jobs,
        "seconds": outcome.wall_s,
        "per_hour": students / outcome.wall_s * 3600,
        "command": f"python -m grader.farm grade SUBMISSIONS --out DIR --jobs {jobs}",
    }


def _graded(out: Path) -> int:
    """Students the farm's grades.json lists as graded."""
    try:
        grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))
        return sum(1 for g in grades["students"] if g.get("status") == "graded")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return 0
