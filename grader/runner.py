"""Run the graded suite on one submission: pytest in a fresh trusted process with our plugin.

A separate pytest process per submission keeps gradings independent (no module caches shared
between submissions in a batch) and lets the caller bound the whole run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .sandbox import KIT_ROOT

DEFAULT_TESTS_DIR = KIT_ROOT / "tests" / "graded"
DEFAULT_TEST_TIMEOUT = 60


class SuiteError(Exception):
    """The graded suite itself could not run (a kit problem, not the submission's)."""


def run_suite(
    package_parent: Path,
    *,
    tests_dir: Path = DEFAULT_TESTS_DIR,
    pattern: str | None = None,
    inprocess: bool = False,
    timeout_total: float | None = None,
    hide: tuple[Path, ...] = (),
    isolation: str = "auto",
    contract: str = "kit",
    python: str | None = None,
    deselect: tuple[str, ...] = (),
) -> list[dict]:
    """Per-test records (see grader/outcome.py) of the graded suite run against `package_parent`."""
    tests_dir = Path(tests_dir).resolve()
    if not tests_dir.is_dir():
        raise SuiteError(f"{tests_dir}: graded tests folder not found")
    with tempfile.TemporaryDirectory(prefix="bpe-kit-run-") as tmp:
        tmp = Path(tmp)
        ini = tmp / "pytest.ini"
        ini.write_text(f"[pytest]\ntimeout = {DEFAULT_TEST_TIMEOUT}\ntimeout_method = signal\n")
        records = tmp / "records.json"
        argv = [
            sys.executable,
            "-m",
            "pytest",
            str(tests_dir),
            "-c",
            str(ini),
            "--rootdir",
            str(tests_dir),
            "-p",
            "grader.pytest_plugin",
            "-p",
            "no:cacheprovider",
            "-vv",
            "--tb=no",
            "-rN",
            "--basetemp",
            str(tmp / "basetemp"),
            "--submission",
            str(package_parent),
            "--grader-results",
            str(records),
        ]
        if inprocess:
            argv.append("--inprocess")
        for folder in hide:
            argv += ["--worker-hide", str(folder)]
        argv += ["--worker-isolation", isolation, "--contract", contract]
        if python:
            argv += ["--worker-python", python]
        for nodeid in deselect:  # tests the contract leaves out: not run at all
            argv += ["--deselect", nodeid]
        if pattern:
            argv += ["-k", pattern]
        env = dict(os.environ, PYTHONPATH=str(KIT_ROOT), PYTHONDONTWRITEBYTECODE="1")
        for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):  # the grade must not depend on the caller's
            env.pop(name, None)
        try:
            proc = subprocess.run(
                argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout_total
            )
        except subprocess.TimeoutExpired:
            raise SuiteError(f"grading took longer than {timeout_total} s in total") from None
        # pytest exit codes: 0 all passed, 1 some failed, 5 nothing collected (a -k that matched none).
        if proc.returncode not in (0, 1, 5) or not records.exists():
            lines = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
            why = next(
                (line for line in reversed(lines) if "Error" in line or "Exit" in line),
                lines[-1] if lines else "",
            )
            raise SuiteError(f"the graded suite could not run (pytest exit {proc.returncode}): {why[:400]}")
        return json.loads(records.read_text())
