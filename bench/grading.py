"""How long the grader takes: a full grade of the reference, a Part-2-only grade (a student's quick
loop, `make grade PART=2`), and a class graded in batch.

All go through the same commands an instructor or a student types, so the figures include
everything a real run pays for. Where a full grade's seconds go is read from its junit.xml (each
test's own time, which includes starting its fresh worker and, for the speed gates, calibration);
the rest of the wall time is the grader's own start-up: pytest, collection, the sandbox check.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET
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
    times, scores, splits = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        for i in range(runs):
            out = Path(tmp) / f"run{i}"
            outcome, _status, _stderr = measure.run_process(
                [sys.executable, "-m", "grader", "grade", "solution", "--out", str(out)],
                timeout_s=timeout_s,
                memory=False,
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
            splits.append(where_the_time_goes(out / "junit.xml", outcome.wall_s))
        if times and "error" not in section:
            section["part2"] = run_part(Path(tmp) / "part2", "2", timeout_s)
            section["starter"] = run_starter(Path(tmp) / "starter", timeout_s)
    if times:
        section.update(seconds=measure.median(times), all_seconds=times, score=scores[-1])
        if splits and splits[-1]:
            section["split"] = splits[-1]  # of the last full grade
    section["farm"] = run_farm(farm_students, jobs, timeout_s)
    return section


def where_the_time_goes(junit: Path, wall_s: float) -> dict | None:
    """Seconds per part and the slowest tests of one grade, from its junit.xml; the start-up is the
    wall time no test accounts for."""
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
        times = [(c.get("classname", ""), c.get("name", ""), float(c.get("time", 0))) for c in cases]
    except (OSError, ET.ParseError, ValueError):
        return None
    by_part: dict[str, float] = {}
    for part, _name, t in times:
        by_part[part] = round(by_part.get(part, 0.0) + t, 2)
    tests_s = sum(t for _, _, t in times)
    slowest = sorted(times, key=lambda x: -x[2])[:5]
    return {
        "tests_s": round(tests_s, 2),
        "startup_s": round(max(0.0, wall_s - tests_s), 2),
        "by_part": by_part,
        "slowest": [{"test": name, "seconds": round(t, 2)} for _, name, t in slowest],
    }


def run_part(out: Path, part: str, timeout_s: float) -> dict:
    """One `--part` grade of the reference: the student's quick loop."""
    cmd = [sys.executable, "-m", "grader", "grade", "solution", "--out", str(out), "--part", part]
    outcome, _status, _stderr = measure.run_process(cmd, timeout_s=timeout_s, memory=False)
    if not outcome.ok:
        return {"note": f"not measured: `--part {part}` failed: {outcome.error}"}
    return {
        "part": part,
        "seconds": outcome.wall_s,
        "split": where_the_time_goes(out / "junit.xml", outcome.wall_s),
        "command": f"python -m grader grade solution --part {part}",
    }


def run_starter(out: Path, timeout_s: float) -> dict:
    """A grade of the untouched starter (every stub raises): the first thing a student runs."""
    cmd = [sys.executable, "-m", "grader", "grade", "starter", "--out", str(out)]
    outcome, _status, _stderr = measure.run_process(cmd, timeout_s=timeout_s, memory=False)
    try:
        score = json.loads((out / "results.json").read_text())["score"]
    except (OSError, ValueError, KeyError):
        return {"note": f"not measured: grading the starter wrote no results.json ({outcome.error})"}
    return {"seconds": outcome.wall_s, "score": score, "command": "python -m grader grade starter"}


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
        outcome, _, _ = measure.run_process(cmd, timeout_s=timeout_s * students, memory=False)
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
