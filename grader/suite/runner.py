"""Run the graded suite on one submission: pytest in a fresh trusted process with our plugin.

A separate pytest process per submission keeps gradings independent (no module caches shared
between submissions in a batch) and lets the caller bound the whole run. `run_suite` starts and
waits for it; the farm, which budgets and interrupts each student itself, starts the same command
(`suite_command`) directly, so there is one process per trust boundary and one budget.

With two cores to use (`jobs`), `run_suite` runs the efficiency tests in a second pytest process
beside the others: they take about half of a full grade's time, and every test already runs in a
fresh worker of its own, under CPU-time limits, so where a test runs moves no verdict.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .. import i18n, measured
from ..errors import SuiteError
from ..i18n import _
from ..paths import KIT_ROOT
from ..request import GradeRequest

DEFAULT_TEST_TIMEOUT = 60
EFFICIENCY = "test_efficiency.py"
DEFAULT_REQUEST = (
    GradeRequest()
)  # a full grade, every option at its default  # the tests a second process runs (`shards`)


def default_jobs() -> int:
    """Processes a grade runs its tests in: two where this process may use two cores or more."""
    return 2 if len(os.sched_getaffinity(0)) >= 2 else 1


def shards(
    tests_dir: Path, node_ids: list[str] | None, pattern: str | None, jobs: int
) -> list[tuple[list[str] | None, tuple[str, ...]]]:
    """What each pytest process runs, as (node ids or None for all, files it ignores): with
    `jobs` ≥ 2 the efficiency tests apart from the others, else everything in one. No process
    is made for a side with nothing to run; a -k `pattern` runs in one (which side it selects
    is known only once collected, and a process that collects nothing costs a second)."""
    if jobs < 2 or pattern or not (Path(tests_dir) / EFFICIENCY).is_file():
        return [(node_ids, ())]
    if node_ids is None:
        return [(None, (EFFICIENCY,)), ([EFFICIENCY], ())]
    sides = [
        [n for n in node_ids if not n.startswith(EFFICIENCY)],
        [n for n in node_ids if n.startswith(EFFICIENCY)],
    ]
    return [(side, ()) for side in sides if side]


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
    request: GradeRequest = DEFAULT_REQUEST,
    *,
    node_ids: list[str] | None = None,
    deselect: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
) -> SuiteCommand:
    """The pytest command that grades `package_parent` as `request` asks (its tests_dir, tests as
    a pytest -k expression, inprocess, hide, isolation, contract, python: the worker's interpreter,
    grader/sandbox/student_python.py), with its scratch files in `workdir`.

    `node_ids` (relative to the tests folder) runs only those tests, `ignore` leaves those files
    out (relative too), `deselect` the tests the contract leaves out (not run at all). The feedback
    is written in this process's language (grader/i18n.py)."""
    tests_dir, pattern, python = request.tests_dir, request.tests, request.python
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
    if request.inprocess:
        argv.append("--inprocess")
    if request.fresh_workers:
        argv.append("--worker-fresh")
    for folder in request.hide:
        argv += ["--worker-hide", str(folder)]
    argv += [
        "--worker-isolation",
        request.isolation,
        "--contract",
        request.contract,
        "--grader-lang",
        i18n.current(),
    ]
    if python:
        argv += ["--worker-python", python]
    for nodeid in deselect:
        argv += ["--deselect", nodeid]
    for name in ignore:
        argv += ["--ignore", str(tests_dir / name)]
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
    request: GradeRequest = DEFAULT_REQUEST,
    *,
    node_ids: list[str] | None = None,
    deselect: tuple[str, ...] = (),
) -> list[dict]:
    """Per-test records (see grader/suite/outcome.py) of the graded suite run against
    `package_parent` as `request` asks, in up to `request.jobs` pytest processes at once (`shards`),
    within its `timeout_total`; `node_ids`, `deselect` as for `suite_command`."""
    with tempfile.TemporaryDirectory(prefix="bpe-kit-run-") as tmp:
        # The grade's processes measure the machine once between them (grader/measured.py), unless
        # the caller's run (a farm, the kit's tests) already shares one measurement.
        shared_env = {} if measured.run_file() else {measured.ENV: str(Path(tmp) / "machine.json")}
        commands = []
        for k, (ids, ignore) in enumerate(shards(request.tests_dir, node_ids, request.tests, request.jobs)):
            workdir = Path(tmp) / str(k)
            workdir.mkdir()
            cmd = suite_command(
                package_parent, workdir, request, node_ids=ids, deselect=deselect, ignore=ignore
            )
            cmd.env.update(shared_env)
            commands.append(cmd)
        finished = _run_together(commands, request.timeout_total)
        return [
            record
            for cmd, (code, output) in zip(commands, finished)
            for record in suite_records(cmd, code, output)
        ]


def _run_together(commands: list[SuiteCommand], timeout_total: float | None) -> list[tuple[int, str]]:
    """Run the commands at once; (exit code, output) of each. Past `timeout_total` seconds, or on
    any interruption, every one of them is killed."""
    deadline = None if timeout_total is None else time.monotonic() + timeout_total
    procs = []
    try:
        for cmd in commands:
            with open(cmd.cwd / "output.txt", "wb") as out:
                procs.append(
                    subprocess.Popen(cmd.argv, cwd=cmd.cwd, env=cmd.env, stdout=out, stderr=subprocess.STDOUT)
                )
        for proc in procs:
            proc.wait(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise SuiteError(
            _("grading took longer than {seconds} s in total").format(seconds=timeout_total)
        ) from None
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return [
        (proc.returncode, (cmd.cwd / "output.txt").read_text(encoding="utf-8", errors="replace"))
        for cmd, proc in zip(commands, procs)
    ]
