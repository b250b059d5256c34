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
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from .. import grade_builder, report, rubric
from ..contracts import CS336, Contract
from ..errors import PythonError, RubricError, SubmissionError, SuiteError
from ..grade_builder import GradeMore
from ..request import GradeRequest
from ..sandbox.student_python import Mismatch
from ..suite import outcome, runner
from . import records
from .roster import Entry
from .unpack import prepare


@dataclass(frozen=True)
class Setup:
    """What grades every student of a run alike (computed once per run)."""

    request: GradeRequest  # the run's grade options (tests_dir, rubric, contract, python...)
    contract: Contract  # request.contract, resolved (grader/contracts.py)
    entries: list[rubric.Entry]
    kit: str  # grader.farm.fingerprint.kit_fingerprint
    isolation: str  # the isolation level its workers get (recorded with every result)
    budget: float


@dataclass(frozen=True)
class Outcome:
    status: str
    records: list[dict]  # this run's raw per-test records (grader/suite/outcome.py)
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


def _covered(setup: Setup, recs: list[dict]) -> int:
    """How many rubric tests the records are of."""
    return sum(any(e.covers(r["nodeid"]) for r in recs) for e in setup.entries)


def run_student(
    pkg_parent: Path,
    scratch: Path,
    log: Path,
    setup: Setup,
    request: GradeRequest,
    *,
    live: set,
    stop: threading.Event,
    node_ids: list[str] | None = None,
) -> Outcome | None:
    """The outcome of grading one unpacked submission as `request` asks (the run's, with this
    student's tests, hidden folders and interpreter); None if the run was stopped meanwhile.
    `node_ids`: only those tests."""
    cmd = runner.suite_command(
        pkg_parent, scratch, request, node_ids=node_ids, deselect=setup.contract.deselect
    )
    argv = [sys.executable, "-m", "grader.farm.launch", str(os.getpid()), "--", *cmd.argv]
    timed_out = False
    if stop.is_set():
        return None
    with log.open("ab") as logf:
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
        return Outcome(
            records.TIMED_OUT,
            recs,
            f"stopped after its {setup.budget:g} s budget"
            + (f" while running {running}" if running else "")
            + f"; {_covered(setup, recs)} test(s) had finished",
            running,
        )
    try:
        recs = runner.suite_records(cmd, rc, _tail(log, 6000))
    except SuiteError as e:
        return Outcome(records.GRADER_ERROR, [], str(e))
    if request.tests and not _covered(setup, recs):
        return Outcome(
            records.GRADER_ERROR, [], f"--tests {request.tests!r} selects none of the graded tests"
        )
    return Outcome(records.GRADED, recs)


def staged(
    path: Path, scratch: Path, setup: Setup, stack: contextlib.ExitStack
) -> tuple[Path, str | None, Mismatch | None]:
    """(the folder holding `bpe/`, the worker's interpreter or None, the requires-python it was let
    miss or None) for one upload.

    A CS336 repository is staged behind the `bpe` shim (grader/cs336/intake.py) for as long as
    `stack` lasts, and graded under `--python`, else its own .venv's interpreter when it has one;
    an interpreter outside its `requires-python` raises PythonError, unless the run ignores it."""
    if setup.contract.name != CS336:
        return prepare(path, scratch), setup.request.python, None
    parent, repo = stack.enter_context(setup.contract.opened(path))
    python, ignored = setup.contract.worker_python(
        repo, setup.request.python, setup.request.ignore_requires_python
    )
    return parent, python, ignored


def rebuilt(
    setup: Setup,
    previous: dict | None,
    fresh: list[dict],
    *,
    submission: str,
    replaces_all: bool,
    grade_more: GradeMore | None = None,
) -> tuple[list[dict], list[dict], bool]:
    """(the record's raw records, its results.json-shaped tests, whether a full run is among them)
    after this run's `fresh` records (of `submission`, by this kit: each record says so): the previous record's
    records with those of the tests this run graded replaced, and the grade built over them all by
    the one builder (grader/grade_builder.py), so a partial regrade charges a fault as a full grade
    does. `replaces_all`: this run graded every test (the previous records are dropped)."""
    kept = [] if replaces_all or previous is None else previous.get("suite", [])
    full = replaces_all or bool(previous and previous.get("full_run") and kept)
    fresh = [dict(r, kit=setup.kit, submission=submission) for r in fresh]
    union = grade_builder.replaced(setup.entries, kept, fresh)
    left_out = set(setup.contract.deselect)
    built = grade_builder.build(
        setup.entries, union, partial=not full, left_out=left_out, grade_more=grade_more
    )
    if built.more:  # the earlier tests graded for the charges are part of the record: shown too
        built = grade_builder.build(setup.entries, built.records, partial=not full, left_out=left_out)
    shaped = report.results_json(built.scored, execution_time=0.0, isolation=setup.isolation)["tests"]
    tests = []
    for s, t in zip(built.scored, shaped, strict=True):
        mine = [r for r in built.records if s.entry.covers(r["nodeid"])]
        tag = mine[0] if mine else {"kit": setup.kit, "submission": submission}  # not run: this run's
        tests.append(dict(t, kit=tag.get("kit"), submission=tag.get("submission")))
    return built.records, tests, full


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
    """Grade `entry`, commit its record under `out` and return it; None if the run was stopped.
    `pattern`: regrade only the tests it selects, into `previous`."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bpe-farm-") as scratch, contextlib.ExitStack() as stack:
        scratch = Path(scratch)
        log = scratch / "grader.log"
        log.touch()
        (scratch / "unpacked").mkdir()
        ignored, grade_more = None, None
        try:
            pkg_parent, python, ignored = staged(entry.path, scratch / "unpacked", setup, stack)
        except SubmissionError as e:
            result = Outcome(records.UNREADABLE, [], str(e))
        except PythonError as e:  # the course's to fix (another --python), then rerun
            result = Outcome(records.GRADER_ERROR, [], str(e))
        else:
            request = replace(
                setup.request,
                tests=pattern,
                # The outputs, and the other students' submissions (theirs is copied in).
                hide=(out.resolve(), entry.path.parent.resolve()),
                python=python,
            )
            more_runs = iter(range(1, 1000))

            def grade_more(ids: list[str]) -> list[dict]:
                """The records of earlier tests a proven fault needs (a run of their own)."""
                work = scratch / f"more-{next(more_runs)}"
                work.mkdir()
                more = run_student(
                    pkg_parent,
                    work,
                    log,
                    setup,
                    replace(request, tests=None),
                    live=live,
                    stop=stop,
                    node_ids=ids,
                )
                return more.records if more is not None and more.status == records.GRADED else []

            (scratch / "run").mkdir()
            try:
                result = run_student(pkg_parent, scratch / "run", log, setup, request, live=live, stop=stop)
            except OSError as e:
                result = Outcome(records.GRADER_ERROR, [], f"could not start the graded suite: {e}")
        if result is None or stop.is_set():
            return None
        suite, tests, full = [], [], False
        if result.status != records.UNREADABLE:
            keep = previous if previous and previous["status"] != records.UNREADABLE else None
            try:
                suite, tests, full = rebuilt(
                    setup,
                    keep,
                    result.records,
                    submission=submission,
                    replaces_all=result.status == records.GRADED and not pattern,
                    grade_more=grade_more if result.status == records.GRADED and pattern else None,
                )
            except RubricError as e:
                result = Outcome(records.GRADER_ERROR, [], str(e))
                suite, tests, full = rebuilt(setup, keep, [], submission=submission, replaces_all=False)
        if stop.is_set():
            return None
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
            "suite": suite,  # the raw per-test records the grade is built from (grader/grade_builder.py)
            "full_run": full,  # a full run is among them: a rubric test without records was not run
            "tests": tests,
            "score": 0.0 if result.status == records.UNREADABLE else records.total(tests),
            "max_score": float(sum(e.points for e in setup.entries)),
            # Timings are kept apart so that outputs can be compared with them stripped.
            "timing": {"started": started, "seconds": round(time.monotonic() - t0, 3)},
        }
        if ignored is not None:
            rec["requires_python_ignored"] = ignored.data()
        extra = {"isolation": setup.isolation, "status": rec["status"], "kit": setup.kit}
        if ignored is not None:
            extra["requires_python_ignored"] = ignored.data()
        results = {
            "score": rec["score"],
            "tests": [{k: v for k, v in t.items() if k not in ("kit", "submission")} for t in tests],
            "extra_data": extra,
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
