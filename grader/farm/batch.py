"""Grade a directory of submissions: parallel, resumable, optionally one shard or a few students.

Who is graded on a run: everyone without a current result. A result is current when it was graded
by today's kit (grader/farm/fingerprint.py) from today's submission, for every rubric test, and
did not end in a grader error or an interruption. `--force` regrades everyone selected; `--tests`
regrades those tests for everyone selected and merges them into the records; `--keep-stale` keeps
stale results (they are then listed as stale everywhere). A run writes down whom it set out to
grade (`pending` in manifest.json) before it starts, so an interrupted run, however it ended, is
finished by the next one, `--force` included.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .. import calibration, contracts, measured, rubric
from ..api import isolation_level
from ..errors import RosterError
from ..paths import CALIBRATION_FILE
from ..request import GradeRequest
from ..sandbox import student_python
from . import current, records
from .fingerprint import kit_fingerprint
from .progress import Progress
from .roster import discover, in_shard
from .runner import Setup, grade_one, kill_group
from .unpack import fingerprint as fingerprint_of

if TYPE_CHECKING:
    from collections.abc import Iterator

MANIFEST = "manifest.json"
OLDER_FORMAT = "older format"  # why a record is regraded whole (records.older_format)
# The reference solution's whole graded suite takes 9 s (a quiet machine) to 35-65 s (a busy one)
# of wall time on the kit's machine, where the calibration yardstick (grader/calibration.py) took
# the CPU time recorded in calibration.json. A student gets BUDGET_MARGIN times the busy time,
# scaled up by how much slower the yardstick runs here and now: a slow submission is graded, only a
# runaway one is stopped.
REFERENCE_SECONDS = 65.0
BUDGET_MARGIN = 10.0


def default_budget() -> float:
    """Seconds per student: a wide margin over the calibrated reference time on this machine."""
    try:
        recorded = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))["train"]["yardstick_cpu_s"]
        slower = max(1.0, calibration.yardstick_seconds(repeat=1) / float(recorded))
    except (OSError, ValueError, KeyError, TypeError):
        slower = 1.0  # no calibration (a fresh checkout before `make fixtures`): the margin alone
    return round(BUDGET_MARGIN * REFERENCE_SECONDS * slower)


def read_manifest(out: Path) -> dict | None:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == records.FORMAT else None


def not_readable(out: Path) -> str:
    """Why `out` has no manifest `read_manifest` reads, for a one-line error."""
    try:
        fmt = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        fmt = None
    if isinstance(fmt, int) and fmt < records.FORMAT:
        return (
            f"{out}: written by an older farm (format {fmt}; this farm writes {records.FORMAT}, whose "
            "records keep the raw records a grade is built from): rerun `farm grade` into it to regrade it"
        )
    return f"{out}: not a farm output (no readable {MANIFEST} of this kit's format)"


def stale_tests(rec: dict, kit: str, submission: str | None, numbers: list[str]) -> list[str]:
    """What of the record is not today's: the numbers of its tests graded by another kit or from
    another upload than `submission`. A record with no test results (an unreadable upload, a run
    stopped before any test finished) made by another kit or from another upload is stale whole:
    every rubric test (`numbers`). Grader errors and interruptions are regraded, never stale."""
    submission = submission or rec.get("submission")
    if rec["status"] in (records.GRADER_ERROR, records.INTERRUPTED):
        return []
    if not rec["tests"]:
        return list(numbers) if rec.get("kit") != kit or rec.get("submission") != submission else []
    return [t["number"] for t in rec["tests"] if t.get("kit") != kit or t.get("submission") != submission]


def missing_tests(rec: dict, numbers: list[str]) -> list[str]:
    have = {t["number"] for t in rec["tests"]}
    return [n for n in numbers if n not in have]


def _needs_grading(rec: dict | None, kit: str, fp: str | None, numbers: list[str]) -> str | None:
    """Why this kept record must be regraded, or None if it is current."""
    if rec is None:
        return "new"
    if rec["status"] in (records.GRADER_ERROR, records.INTERRUPTED):
        return rec["status"]
    if stale_tests(rec, kit, fp, numbers):
        return "stale"
    if rec["status"] == records.GRADED and missing_tests(rec, numbers):
        return "incomplete"
    return None


def _check_only(only: list[str] | None, entries: list, submissions: Path) -> None:
    """`--only` names students of this folder: a typo is refused, not graded as nobody."""
    unknown = sorted(set(only or ()) - {e.student for e in entries})
    if unknown:
        raise RosterError(f"--only: no submission in {submissions} for {', '.join(unknown)}")


def grade_all(
    submissions: Path,
    out: Path,
    *,
    jobs: int = 1,
    shard: tuple[int, int] | None = None,
    only: list[str] | None = None,
    force: bool = False,
    keep_stale: bool = False,
    budget: float | None = None,
    tests: str | None = None,
    request: GradeRequest | None = None,
    stream: TextIO | None = None,
) -> dict:
    """Grade who needs it (see the module docstring); returns the output's manifest.

    `tests`: regrade the tests this pytest -k expression selects, for everyone selected, into their
    records. `request` (grader/request.py): how every student is graded (tests_dir, rubric_path,
    contract, python, ignore_requires_python; its own `tests` is not read). With contract "cs336"
    each submission is a CS336 repository (grader/cs336/), graded with that contract's rubric
    unless `rubric_path` says otherwise."""
    entries, strays = discover(submissions)
    request = request or GradeRequest()
    contract = contracts.resolve(request.contract, request.rubric_path)
    rubric_path, tests_dir = contract.rubric, request.tests_dir
    entries_rubric = rubric.load(rubric_path)
    if not tests_dir.is_dir():
        raise RosterError(f"{tests_dir}: graded tests folder not found")
    _check_only(only, entries, submissions)
    mine = in_shard(entries, *shard) if shard else entries
    chosen = [e for e in mine if not only or e.student in only]
    out.mkdir(parents=True, exist_ok=True)
    records.collect_garbage(out)
    kit = kit_fingerprint(tests_dir, rubric_path, contract.name)
    python = student_python.checked(request.python) if request.python else None
    setup = Setup(
        request=replace(
            request, tests_dir=tests_dir.resolve(), rubric_path=rubric_path.resolve(), python=python
        ),
        contract=contract,
        entries=entries_rubric,
        kit=kit,
        isolation=isolation_level(),
        budget=budget or default_budget(),
    )
    numbers = [e.number for e in sorted(entries_rubric, key=lambda e: rubric.number_key(e.number))]
    old = read_manifest(out) or {}
    pending = old.get("pending") or {"run": None, "students": {}}
    fps = {e.student: fingerprint_of(e.path) for e in mine}
    todo: list[tuple] = []
    kept: dict[str, list[str]] = {"current": [], "stale": []}  # chosen, and not regraded
    left: dict[str, list[str]] = {}  # not chosen (--only), by why they would be regraded
    older: dict[str, int] = {}  # chosen students whose record is of an older format: regraded whole
    for e in mine:
        rec = records.read_record(records.record_path(out, e.student))
        why = _needs_grading(rec, kit, fps[e.student], numbers)
        fmt = records.older_format(records.record_path(out, e.student)) if rec is None else None
        if fmt is not None:
            why = OLDER_FORMAT
        if e.student in pending["students"] and (rec is None or rec.get("run") != pending["run"]):
            todo.append(
                (e, None if fmt else pending["students"][e.student], rec)
            )  # an interrupted run's work
        elif e not in chosen:
            left.setdefault(why or "current", []).append(e.student)
        elif fmt is not None:
            older[e.student] = fmt
            todo.append((e, None, None))
        elif force or tests:
            todo.append((e, tests, rec))
        elif why is None:
            kept["current"].append(e.student)
        elif why == "stale" and keep_stale:
            kept["stale"].append(e.student)
        else:
            todo.append((e, None, rec))
    run_id = secrets.token_hex(6)
    manifest = {
        "format": records.FORMAT,
        "source": str(submissions),
        "shard": list(shard) if shard else None,
        "roster": [e.student for e in entries],
        "assigned": [e.student for e in mine],
        "strays": strays,
        "kit": kit,
        "rubric": current.rubric_table(entries_rubric),
        "setup": current.setup(tests_dir, rubric_path, contract.name),
        "submissions": fps,
        "pending": {"run": run_id, "students": {e.student: pat for e, pat, _ in todo}},
    }
    records.write_json_atomic(out / MANIFEST, manifest)
    progress = Progress(len(todo), stream=stream, kept=kept, left=left, strays=strays, older=older)
    with measured_once():
        if todo:
            with tempfile.TemporaryDirectory(prefix="bpe-kit-measure-") as scratch:
                calibration.measure_first(Path(scratch))
        _grade_todo(todo, out, setup, fps, run_id, jobs, progress)
    manifest["pending"] = None
    records.write_json_atomic(out / MANIFEST, manifest)
    progress.finish()
    return manifest


@contextlib.contextmanager
def measured_once() -> Iterator[None]:
    """Inside, the gradings this run starts share one measurement of the machine (grader/measured.py):
    every student of the run meets the same budgets and limits, and the machine is measured once,
    not once per student. A run file already named (a caller's own run) is kept."""
    if measured.run_file() is not None:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="bpe-kit-measured-") as tmp:
        os.environ[measured.ENV] = str(Path(tmp) / "machine.json")
        try:
            yield
        finally:
            os.environ.pop(measured.ENV, None)


def _grade_todo(
    todo: list[tuple], out: Path, setup: Setup, fps: dict, run_id: str, jobs: int, progress: Progress
) -> None:
    live: set = set()
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [
            pool.submit(
                grade_one,
                e,
                out,
                setup,
                submission=fps[e.student],
                pattern=pat,
                previous=rec,
                run_id=run_id,
                live=live,
                stop=stop,
            )
            for e, pat, rec in todo
        ]
        for fut in as_completed(futures):
            rec = fut.result()
            if rec is not None:
                progress.update(rec)
    except BaseException:
        # Ctrl-C, SIGTERM or a bug: stop queued work and every running suite; nothing half-done is
        # committed, and `pending` tells the next run whom to finish.
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in list(live):
            kill_group(proc)
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)
