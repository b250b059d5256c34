"""Grade one student: unpack, run the worker under a wall-clock budget, turn the outcome into a record."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from . import records
from .roster import Entry
from .unpack import Unreadable, prepare
from .worker import EXIT_UNREADABLE

KIT_ROOT = Path(__file__).resolve().parents[2]


def _tail(path: Path, limit: int = 2000) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip()


def _valid_results(data) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("tests"), list)
        and isinstance(data.get("score"), (int, float))
        and not isinstance(data.get("score"), bool)
    )


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def run_worker(
    pkg_parent: Path, out_dir: Path, *, budget: float, grade_fn: str, grade_kwargs: dict, live: set, log: Path
) -> tuple[str, dict | None, str]:
    """(status, results, message) for one graded directory; kills the process group on overrun.

    Messages are one line (the error itself); the grader's full output stays in grader.log.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(KIT_ROOT), env.get("PYTHONPATH")]))
    cmd = [
        sys.executable,
        "-m",
        "grader.farm.worker",
        str(pkg_parent),
        str(out_dir),
        "--grade-fn",
        grade_fn,
        "--timeout-total",
        str(grader_timeout(budget)),
        "--grade-kwargs",
        json.dumps(grade_kwargs),
        "--parent-pid",
        str(os.getpid()),
    ]
    with log.open("wb") as logf:
        proc = subprocess.Popen(
            cmd,
            cwd=KIT_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=logf,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        live.add(proc)
        try:
            rc = proc.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            return (
                records.GRADER_ERROR,
                None,
                f"grading took longer than its {budget:g} s budget and was stopped",
            )
        finally:
            kill_group(proc)  # stragglers of a finished worker never outlive it
            live.discard(proc)
    if rc == EXIT_UNREADABLE:
        return records.UNREADABLE, None, _last_line(_tail(log))
    if rc != 0:
        return records.GRADER_ERROR, None, f"the grader failed (exit status {rc}): {_last_line(_tail(log))}"
    try:
        results = json.loads((out_dir / "farm-results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return records.GRADER_ERROR, None, f"the grader wrote no readable results ({e})"
    if not _valid_results(results):
        return records.GRADER_ERROR, None, "the grader's results are not in the results.json schema"
    return records.GRADED, results, ""


def grader_timeout(budget: float) -> float:
    """The grader gets slightly less than the budget, so its own clean timeout normally fires first."""
    return max(budget * 0.9, budget - 30.0)


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def grade_one(
    entry: Entry,
    out: Path,
    *,
    fingerprint: str,
    config: str,
    budget: float,
    grade_fn: str,
    grade_kwargs: dict,
    live: set,
) -> dict:
    """Grade `entry` and commit its record under `out`; returns the record."""
    sdir = records.student_dir(out, entry.student)
    sdir.mkdir(parents=True, exist_ok=True)
    gdir = sdir / "grader"
    if gdir.exists():
        shutil.rmtree(gdir)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bpe-farm-") as scratch:
        try:
            # A CS336 repository is found and staged by the grader itself (grader/cs336/intake.py).
            cs336 = grade_kwargs.get("contract") == "cs336"
            pkg_parent = entry.path.resolve() if cs336 else prepare(entry.path, Path(scratch))
        except Unreadable as e:
            status, results, message = records.UNREADABLE, None, str(e)
        except Exception as e:
            status, results, message = (
                records.GRADER_ERROR,
                None,
                f"could not unpack: {type(e).__name__}: {e}",
            )
        else:
            try:
                status, results, message = run_worker(
                    pkg_parent,
                    gdir,
                    budget=budget,
                    grade_fn=grade_fn,
                    grade_kwargs=grade_kwargs,
                    live=live,
                    log=sdir / "grader.log",
                )
            except OSError as e:
                status, results, message = records.GRADER_ERROR, None, f"could not start the grader: {e}"
    details = _tail(sdir / "grader.log", 6000) if status == records.GRADER_ERROR else ""
    rec = records.make_record(
        entry.student,
        entry.path.name,
        fingerprint,
        status,
        results=results,
        config=config,
        message=message,
        details=details,
        seconds=time.monotonic() - t0,
        started=started,
    )
    records.write_json_atomic(records.record_path(out, entry.student), rec)
    return rec
