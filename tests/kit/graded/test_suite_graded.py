"""The graded suite end to end: all green on the reference, cleanly "not implemented" on the starter,
and each efficiency gate fails the variant it is meant to fail, and passes a simple good one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import suite_variants

from grader import rubric
from grader.paths import DEFAULT_RUBRIC
from grader.paths import KIT_ROOT as KIT

RUBRIC = rubric.load(DEFAULT_RUBRIC)


def run_suite(submission: Path, out: Path, *args: str) -> dict[str, dict]:
    """Run tests/graded through the grader's pytest plugin; return {node id: record}."""
    results = out / "records.json"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "grader.suite.plugin",
        "--submission",
        str(submission),
        "--grader-results",
        str(results),
        "-q",
        "-p",
        "no:cacheprovider",
        *args,
    ]
    done = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True, timeout=900)
    assert results.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    records = json.loads(results.read_text())
    return {r["nodeid"].split("tests/graded/")[-1]: r for r in records}


@pytest.mark.slow
def test_reference_passes_everything_in_process(tmp_path):
    records = run_suite(KIT / "solution", tmp_path, "--inprocess", "tests/graded")
    failed = {k: r["feedback"][:500] for k, r in records.items() if r["status"] != "passed"}
    assert not failed
    assert len(records) == len(RUBRIC)  # every rubric test ran once


@pytest.mark.slow
def test_starter_is_not_implemented_everywhere(tmp_path):
    records = run_suite(KIT / "starter", tmp_path, "tests/graded")
    assert len(records) == len(RUBRIC)  # every rubric test ran once
    for node, record in records.items():
        assert record["status"] == "not implemented", (node, record["feedback"][:500])
        assert "Traceback" not in record["feedback"]


@pytest.mark.slow
def test_slow_variant_fails_every_efficiency_gate(tmp_path):
    submission = suite_variants.make_variant("slow", tmp_path)
    records = run_suite(submission, tmp_path, "tests/graded/test_efficiency.py")
    train = records["test_efficiency.py::test_training_speed"]
    encode = records["test_efficiency.py::test_encode_speed"]
    memory = records["test_efficiency.py::test_encode_iterable_memory"]
    assert train["status"] == "failed" and "budget" in train["feedback"] and "recount" in train["feedback"]
    assert encode["status"] == "failed" and "budget" in encode["feedback"] and "replay" in encode["feedback"]
    assert memory["status"] == "failed" and "grew your program's memory" in memory["feedback"], memory[
        "feedback"
    ]


@pytest.mark.slow
def test_simple_incremental_variant_passes_both_speed_gates(tmp_path):
    submission = suite_variants.make_variant("simple", tmp_path)
    records = run_suite(
        submission,
        tmp_path,
        "tests/graded/test_efficiency.py::test_training_speed",
        "tests/graded/test_efficiency.py::test_encode_speed",
    )
    for node, record in records.items():
        assert record["status"] == "passed", (node, record["feedback"])
