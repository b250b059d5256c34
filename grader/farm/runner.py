"""Grade one student: unpack, run the graded suite's pytest process under the student's budget,
turn its per-test records into the student's record, and commit it.

One process per trust boundary: the farm starts the suite's pytest process itself (which starts the
sandboxed workers that run the student's code). One budget bounds it, the whole process group is
killed when it is spent or when the farm stops, and the kernel kills it if the farm dies outright
(grader/farm/launch.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .. import report, rubric, scoring
from ..errors import PythonError, RubricError, SubmissionError, SuiteError
from ..suite import outcome, runner
from . import records
from .roster import Entry
from .unpack import prepare


@dataclass(frozen=True)
class Setup:
    """What grades every student of a run alike (computed once per run)."""

    tests_dir: Path
    rubric_path: Path
    entries: list[rubric.Entry]
    kit: str  # grader.farm.fingerprint.kit_fingerprint
    isolation: str
    budget: float
    contract: str = "kit"  # kit | cs336 (grader/cs336/)
    deselect: tuple[str, ...] = ()  # the graded tests the contract leaves out
    python: str | None = None  # `--python`: the worker's interpreter for every submission


@dataclass(frozen=True)
class Outcome:
    status: str
    tests: list[dict]  # this run's tests, results.json-shaped, in rubric order
    message: str = ""
    running: str = ""  # timed_out: the test that was running


def _tail(path: Path, limit: int = 2000) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip()


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _journal(path: Path) -> tuple[list[dict], list[str]]:
    """(per-test records, started node ids) a stopped pytest process had written."""
    recs, started = [], []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return recs, started
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # the line being written when the process was killed
        if "record" in entry:
            recs.append(entry["record"])
        elif "start" in entry:
            started.append(entry["start"])
    return outcome.merge(recs), started


def _entry_name(setup: Setup, nodeid: str) -> str:
    for e in setup.entries:
        if e.covers(nodeid):
            return f"{e.number} {e.name}"
    return nodeid


def _tests(setup: Setup, recs: list[dict], *, partial: bool) -> list[dict]:
    scored = scoring.score(setup.entries, recs, partial_run=partial)
    return report.results_json(scored, execution_time=0.0, isolation=setup.isolation)["tests"]


def run_student(
    pkg_parent: Path,
    scratch: Path,
    log: Path,
    setup: Setup,
    *,
    pattern: str | None,
    hide: tuple[Path, ...],
    live: set,
    stop: threading.Event,
    python: str | None = None,
) -> Outcome | None:
    """The outcome of grading one unpacked submission; None if the run was stopped meanwhile.

    `python`: the worker's interpreter (a CS336 repository's own venv, when it has one)."""
    cmd = runner.suite_command(
        pkg_parent,
        scratch,
        tests_dir=setup.tests_dir,
        pattern=pattern,
        hide=hide,
        contract=setup.contract,
        python=python,
        deselect=setup.deselect,
    )
    argv = [sys.executable, "-m", "grader.farm.launch", str(os.getpid()), "--", *cmd.argv]
    timed_out = False
    if stop.is_set():
        return None
    with log.open("wb") as logf:
        proc = subprocess.Popen(
            argv,
            cwd=cmd.cwd,
            env=cmd.env,
            stdin=subprocess.DEVNULL,
            stdout=logf,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        live.add(proc)
        try:
            rc = None if stop.is_set() else proc.wait(timeout=setup.budget)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            kill_group(proc)  # on overrun, and stragglers of a finished run never outlive it
            live.discard(proc)
    if stop.is_set():
        return None
    if timed_out:
        recs, started = _journal(cmd.journal)
        done = {r["nodeid"] for r in recs}
        running = next((n for n in reversed(started) if n not in done), "")
        running = _entry_name(setup, running) if running else ""
        tests = _tests(setup, recs, partial=True)
        return Outcome(
            records.TIMED_OUT,
            tests,
            f"stopped after its {setup.budget:g} s budget"
            + (f" while running {running}" if running else "")
            + f"; {len(tests)} test(s) had finished",
            running,
        )
    try:
        recs = runner.suite_records(cmd, rc, _tail(log, 6000))
        tests = _tests(setup, recs, partial=bool(pattern))
    except (SuiteError, RubricError) as e:
        return Outcome(records.GRADER_ERROR, [], str(e))
    if pattern and not tests:
        return Outcome(records.GRADER_ERROR, [], f"--tests {pattern!r} selects none of the graded tests")
    return Outcome(records.GRADED, tests)


def staged(path: Path, scratch: Path, setup: Setup, stack: contextlib.ExitStack) -> tuple[Path, str | None]:
    """(the folder holding `bpe/`, the worker's interpreter or None) for one upload.

    A CS336 repository is staged behind the `bpe` shim (grader/cs336/intake.py) for as long as
    `stack` lasts, and graded under `--python`, else its own .venv's interpreter when it has one;
    an interpreter outside its `requires-python` raises PythonError."""
    if setup.contract != "cs336":
        return prepare(path, scratch), setup.python
    from ..cs336 import intake as cs336_intake
    from ..sandbox import student_python

    repo = stack.enter_context(cs336_intake.opened(path))
    python = setup.python or student_python.default_for(repo.repo)
    cs336_intake.check_python(repo.repo, python)
    return repo.parent, python


def merged_tests(setup: Setup, previous: dict | None, new: list[dict]) -> list[dict]:
    """The previous record's tests overlaid by this run's, for the rubric's tests, in rubric order."""
    by_number = {t["number"]: t for t in (previous or {}).get("tests", [])}
    by_number.update({t["number"]: t for t in new})
    order = [e.number for e in sorted(setup.entries, key=lambda e: rubric.number_key(e.number))]
    return [by_number[n] for n in order if n in by_number]


def grade_one(
    entry: Entry,
    out: Path,
    setup: Setup,
    *,
    submission: str,
    pattern: str | None,
    previous: dict | None,
    run_id: str,
    live: set,
    stop: threading.Event,
) -> dict | None:
    """Grade `entry`, commit its record under `out` and return it; None if the run was stopped."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bpe-farm-") as scratch, contextlib.ExitStack() as stack:
        scratch = Path(scratch)
        log = scratch / "grader.log"
        log.touch()
        (scratch / "unpacked").mkdir()
        try:
            pkg_parent, python = staged(entry.path, scratch / "unpacked", setup, stack)
        except SubmissionError as e:
            result = Outcome(records.UNREADABLE, [], str(e))
        except PythonError as e:  # the course's to fix (another --python), then rerun
            result = Outcome(records.GRADER_ERROR, [], str(e))
        else:
            (scratch / "run").mkdir()
            try:
                result = run_student(
                    pkg_parent,
                    scratch / "run",
                    log,
                    setup,
                    pattern=pattern,
                    # The outputs, and the other students' submissions (theirs is copied in).
                    hide=(out.resolve(), entry.path.parent.resolve()),
                    live=live,
                    stop=stop,
                    python=python,
                )
            except OSError as e:
                result = Outcome(records.GRADER_ERROR, [], f"could not start the graded suite: {e}")
        if result is None or stop.is_set():
            return None
        fresh = [dict(t, kit=setup.kit, submission=submission) for t in result.tests]
        if result.status == records.UNREADABLE:
            tests = []
        else:
            keep = previous if previous and previous["status"] != records.UNREADABLE else None
            tests = merged_tests(setup, keep, fresh)
        rec = {
            "format": records.FORMAT,
            "student": entry.student,
            "source": entry.path.name,
            "submission": submission,
            "kit": setup.kit,
            "run": run_id,
            "status": result.status,
            "message": result.message,
            "running": result.running,
            "details": _tail(log, 6000) if result.status == records.GRADER_ERROR else "",
            "isolation": setup.isolation,
            "tests": tests,
            "score": 0.0 if result.status == records.UNREADABLE else records.total(tests),
            "max_score": float(sum(e.points for e in setup.entries)),
            # Timings are kept apart so that outputs can be compared with them stripped.
            "timing": {"started": started, "seconds": round(time.monotonic() - t0, 3)},
        }
        results = {
            "score": rec["score"],
            "tests": [{k: v for k, v in t.items() if k not in ("kit", "submission")} for t in tests],
            "extra_data": {"isolation": setup.isolation, "status": rec["status"], "kit": setup.kit},
        }
        records.commit(
            out,
            entry.student,
            {
                "record.json": records.dumps(rec),
                "results.json": records.dumps(results),
                "grader.log": log.read_text(encoding="utf-8", errors="replace"),
            },
        )
    return rec
