"""Run the graded suite on one submission: pytest in a fresh trusted process with our plugin.

A separate pytest process per submission keeps gradings independent (no module caches shared
between submissions in a batch) and lets the caller bound the whole run. `run_suite` starts and
waits for it; the farm, which budgets and interrupts each student itself, starts the same command
(`suite_command`) directly, so there is one process per trust boundary and one budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import i18n
from ..errors import SuiteError
from ..i18n import _
from ..paths import DEFAULT_TESTS_DIR, KIT_ROOT

DEFAULT_TEST_TIMEOUT = 60


@dataclass(frozen=True)
class SuiteCommand:
    """How to start the graded suite's pytest process: the callers that budget it (the farm) start it
    themselves; `records` is where the plugin writes the per-test records, `journal` where it
    appends each record as it is made (what a stopped run had finished, and what it was running)."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    records: Path
    journal: Path


def suite_command(
    package_parent: Path,
    workdir: Path,
    *,
    tests_dir: Path = DEFAULT_TESTS_DIR,
    pattern: str | None = None,
    node_ids: list[str] | None = None,
    inprocess: bool = False,
    hide: tuple[Path, ...] = (),
    isolation: str = "auto",
    contract: str = "kit",
    python: str | None = None,
    deselect: tuple[str, ...] = (),
) -> SuiteCommand:
    """The pytest command that grades `package_parent`, with its scratch files in `workdir`.

    `node_ids` (relative to `tests_dir`) runs only those tests; `pattern` is a pytest -k expression;
    `contract` whose rules the tests apply (grader/cs336/), `deselect` the tests it leaves out (not
    run at all); `python` the worker's interpreter (grader/sandbox/student_python.py). The feedback
    is written in this process's language (grader/i18n.py)."""
    tests_dir = Path(tests_dir).resolve()
    if not tests_dir.is_dir():
        raise SuiteError(_("{folder}: graded tests folder not found").format(folder=tests_dir))
    workdir = Path(workdir)
    ini = workdir / "pytest.ini"
    ini.write_text(f"[pytest]\ntimeout = {DEFAULT_TEST_TIMEOUT}\ntimeout_method = signal\n")
    records = workdir / "records.json"
    journal = workdir / "journal.jsonl"
    argv = [
        sys.executable,
        "-m",
        "pytest",
        *([str(tests_dir / n) for n in node_ids] if node_ids else [str(tests_dir)]),
        "-c",
        str(ini),
        "--rootdir",
        str(tests_dir),
        # The plugins a grade uses, named: none is loaded because it happens to be installed (see env).
        "-p",
        "pytest_timeout",
        "-p",
        "_hypothesis_pytestplugin",
        "-p",
        "grader.suite.plugin",
        "-p",
        "no:cacheprovider",
        "-vv",
        "--tb=no",
        "-rN",
        "--basetemp",
        str(workdir / "basetemp"),
        "--submission",
        str(package_parent),
        "--grader-results",
        str(records),
        "--grader-journal",
        str(journal),
    ]
    if inprocess:
        argv.append("--inprocess")
    for folder in hide:
        argv += ["--worker-hide", str(folder)]
    argv += ["--worker-isolation", isolation, "--contract", contract, "--grader-lang", i18n.current()]
    if python:
        argv += ["--worker-python", python]
    for nodeid in deselect:
        argv += ["--deselect", nodeid]
    if pattern:
        argv += ["-k", pattern]
    env = dict(os.environ, PYTHONPATH=str(KIT_ROOT), PYTHONDONTWRITEBYTECODE="1")
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):  # the grade must not depend on the caller's
        env.pop(name, None)
    # No plugin autoload: besides the above, pytest would otherwise rewrite the asserts of every
    # module of every installed plugin's package (all of hypothesis: 0.85 s of CPU per grading).
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return SuiteCommand(argv, env, workdir, records, journal)


def suite_records(cmd: SuiteCommand, returncode: int, output: str) -> list[dict]:
    """The per-test records of a finished suite process, or SuiteError saying why there are none."""
    # pytest exit codes: 0 all passed, 1 some failed, 5 nothing collected (a -k that matched none).
    if returncode not in (0, 1, 5) or not cmd.records.exists():
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        why = next(
            (line for line in reversed(lines) if "Error" in line or "Exit" in line),
            lines[-1] if lines else "",
        )
        raise SuiteError(
            _("the graded suite could not run (pytest exit {code}): {why}").format(
                code=returncode, why=why[:400]
            )
        )
    return json.loads(cmd.records.read_text())


def run_suite(
    package_parent: Path,
    *,
    tests_dir: Path = DEFAULT_TESTS_DIR,
    pattern: str | None = None,
    node_ids: list[str] | None = None,
    inprocess: bool = False,
    timeout_total: float | None = None,
    hide: tuple[Path, ...] = (),
    isolation: str = "auto",
    contract: str = "kit",
    python: str | None = None,
    deselect: tuple[str, ...] = (),
) -> list[dict]:
    """Per-test records (see grader/suite/outcome.py) of the graded suite run against `package_parent`."""
    with tempfile.TemporaryDirectory(prefix="bpe-kit-run-") as tmp:
        cmd = suite_command(
            package_parent,
            Path(tmp),
            tests_dir=tests_dir,
            pattern=pattern,
            node_ids=node_ids,
            inprocess=inprocess,
            hide=hide,
            isolation=isolation,
            contract=contract,
            python=python,
            deselect=deselect,
        )
        try:
            proc = subprocess.run(
                cmd.argv, cwd=cmd.cwd, env=cmd.env, capture_output=True, text=True, timeout=timeout_total
            )
        except subprocess.TimeoutExpired:
            raise SuiteError(
                _("grading took longer than {seconds} s in total").format(seconds=timeout_total)
            ) from None
        return suite_records(cmd, proc.returncode, proc.stdout + proc.stderr)
