"""A stand-in for grader.api.grade, so the farm's own logic is tested fast and without the grader.

A fake submission carries `bpe/fake.json`: {"points": {"1.1": 10, ...}, "mode": "ok"|"crash"|"hang"
|"garbage"|"refuse", "ratio": 0.42}. Each call appends the submission's name to $FAKE_GRADE_LOG, so tests can
see who was (re)graded.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

RUBRIC = [("1.1", "merge", 10.0), ("1.2", "train", 20.0), ("2.1", "encode", 30.0), ("3.1", "speed", 40.0)]


def grade(submission: Path, out_dir: Path, *, timeout_total=None, **_):
    spec = json.loads((submission / "bpe" / "fake.json").read_text())
    log = os.environ.get("FAKE_GRADE_LOG")
    if log:
        with open(log, "a") as f:
            f.write(spec.get("who", submission.name) + "\n")
    time.sleep(spec.get("sleep", 0))
    mode = spec.get("mode", "ok")
    if mode == "crash":
        raise RuntimeError("the sandbox could not start")
    if mode == "refuse":  # as grader.api does: the submission's own problem, raised unchanged
        from grader.errors import SubmissionError

        raise SubmissionError("the submission holds more than 2000 files")
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        return {"not": "results"}
    tests = []
    for number, name, max_score in RUBRIC:
        score = float(spec.get("points", {}).get(number, 0.0))
        output = "ok" if score == max_score else f"{name}: expected something else"
        extra = {}
        if number == "3.1" and "ratio" in spec:
            extra = {"extra_data": {"figures": {"measure": "cpu_seconds", "ratio": spec["ratio"]}}}
        tests.append(
            {
                **extra,
                "number": number,
                "name": name,
                "score": score,
                "max_score": max_score,
                "status": "passed" if score == max_score else "failed",
                "output": output,
                "visibility": "visible",
            }
        )
    results = {
        "score": sum(t["score"] for t in tests),
        "tests": tests,
        "output": "fake grader",
        "execution_time": 0.01,
    }
    (out_dir / "results.json").write_text(json.dumps(results))
    return results


def make_submission(
    root: Path, student: str, *, points=None, mode="ok", ratio=None, sleep=0.0, as_zip=False, nest=""
):
    """A fake submission folder (or zip) for `student` under `root`."""
    import zipfile

    spec = {"who": student, "points": points or {}, "mode": mode, "sleep": sleep}
    if ratio is not None:
        spec["ratio"] = ratio
    files = {
        f"{nest}bpe/__init__.py": "",
        f"{nest}bpe/char_bpe.py": "",
        f"{nest}bpe/fake.json": json.dumps(spec),
    }
    if as_zip:
        with zipfile.ZipFile(root / f"{student}.zip", "w") as z:
            for name, text in files.items():
                z.writestr(name, text)
        return root / f"{student}.zip"
    for name, text in files.items():
        p = root / student / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root / student
