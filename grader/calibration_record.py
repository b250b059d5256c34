"""Recording what calibration reads (`bpe-kit fixtures`): calibration.json, the reference over the
yardstick on the gates' workloads, and test_times.json, the reference's CPU time per graded test.

Above the suite (the reference is graded once to time each test) and above grader/calibration.py,
which reads both files and measures this machine below the suite.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from .budgets import ENCODE_TEXT
from .calibration import generated, measure_reference, write_training_corpus, yardstick_seconds
from .paths import CALIBRATION_FILE, TEST_TIMES_FILE
from .request import GradeRequest
from .suite import runner


def record(solution_parent: Path, out: Path = CALIBRATION_FILE) -> float:
    """Measure reference/yardstick ratios and store them (run by `make fixtures`)."""
    with tempfile.TemporaryDirectory() as tmp:
        measured = measure_reference(write_training_corpus(Path(tmp)), generated(ENCODE_TEXT), repeat=3)
    yard = yardstick_seconds(repeat=5)
    data = {
        gate: {
            "reference_cpu_s": round(seconds, 4),
            "yardstick_cpu_s": round(yard, 4),
            "reference_over_yardstick": round(seconds / yard, 4),
        }
        for gate, seconds in measured.items()
    }
    data["note"] = (
        "Written by `bpe-kit fixtures` (grader/calibration.py); machine dependent, "
        "so not part of the byte-identical fixtures."
    )
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return data["train"]["reference_over_yardstick"]


def record_test_times(
    solution_parent: Path, out: Path = TEST_TIMES_FILE, tests_dir: Path | None = None
) -> int:
    """Grade the reference once and store each test's CPU seconds, and its slowest call's (run by
    `bpe-kit fixtures`); returns how many tests were timed."""
    with tempfile.TemporaryDirectory() as tmp:
        times = Path(tmp) / "times.json"
        request = GradeRequest(tests_dir=tests_dir) if tests_dir is not None else GradeRequest()
        cmd = runner.suite_command(Path(solution_parent).resolve(), Path(tmp), request)
        argv = [*cmd.argv, "--grader-test-times", str(times), "--grader-no-test-limits"]
        subprocess.run(argv, env=cmd.env, cwd=tmp, capture_output=True, check=False)
        measured = json.loads(times.read_text(encoding="utf-8"))
    data = {
        "tests": {k: round(v, 4) for k, v in sorted(measured["tests"].items())},
        "calls": {k: round(v, 4) for k, v in sorted(measured["calls"].items())},
        "yardstick_cpu_s": round(yardstick_seconds(repeat=5), 4),
        "note": "Written by `bpe-kit fixtures` (grader/calibration.py): each graded test's CPU seconds "
        "for the reference solution (`tests`), and its slowest call's (`calls`); machine dependent, so "
        "not part of the byte-identical fixtures.",
    }
    Path(out).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return len(measured["tests"])
