"""Grade a directory of submissions: parallel, resumable, optionally one shard of the class."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import records
from .progress import Progress
from .roster import discover, in_shard
from .runner import grade_one, kill_group
from .unpack import fingerprint as fingerprint_of
from .worker import DEFAULT_GRADE_FN

MANIFEST = "manifest.json"
DEFAULT_BUDGET = 900.0


def _is_current(rec: dict | None, fp: str, config: str) -> bool:
    """A kept record is reused unless it was an infrastructure failure, or the submission or the
    way of grading it (grade function, test selection) changed since."""
    return (
        rec is not None
        and rec["status"] != records.GRADER_ERROR
        and rec.get("fingerprint") == fp
        and rec.get("config") == config
    )


class Manifest:
    """`manifest.json`: who this output is responsible for and where each stands (rewritten atomically)."""

    def __init__(self, out: Path, roster: list[str], assigned: list[str], shard, source: Path):
        self.path = out / MANIFEST
        self.lock = threading.Lock()
        self.data = {
            "format": 1,
            "source": str(source),
            "shard": list(shard) if shard else None,
            "roster": roster,
            "assigned": assigned,
            "status": {},
        }

    def write(self) -> None:
        with self.lock:
            records.write_json_atomic(self.path, self.data)

    def set(self, student: str, status: str) -> None:
        with self.lock:
            self.data["status"][student] = status
            records.write_json_atomic(self.path, self.data)


def grade_all(
    submissions: Path,
    out: Path,
    *,
    jobs: int = 1,
    shard: tuple[int, int] | None = None,
    force: bool = False,
    budget: float = DEFAULT_BUDGET,
    grade_fn: str = DEFAULT_GRADE_FN,
    grade_kwargs: dict | None = None,
    stream=None,
) -> dict[str, dict]:
    """Grade every submission of this shard not graded yet; returns this shard's records by student."""
    entries = discover(submissions)
    mine = in_shard(entries, *shard) if shard else entries
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out, [e.student for e in entries], [e.student for e in mine], shard, submissions)
    config = json.dumps({"grade_fn": grade_fn, "kwargs": grade_kwargs or {}}, sort_keys=True)
    done: dict[str, dict] = {}
    todo = []
    for e in mine:
        fp = fingerprint_of(e.path)
        rec = records.read_record(records.record_path(out, e.student))
        if not force and _is_current(rec, fp, config):
            done[e.student] = rec
            manifest.data["status"][e.student] = rec["status"]
        else:
            todo.append((e, fp))
    manifest.write()
    progress = Progress(len(todo), stream=stream, skipped=len(done))
    live: set = set()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = {
            pool.submit(
                grade_one,
                e,
                out,
                fingerprint=fp,
                config=config,
                budget=budget,
                grade_fn=grade_fn,
                grade_kwargs=grade_kwargs or {},
                live=live,
            ): e
            for e, fp in todo
        }
        for fut in as_completed(futures):
            rec = fut.result()
            done[rec["student"]] = rec
            manifest.set(rec["student"], rec["status"])
            progress.update(rec)
    except BaseException:
        # Ctrl-C or a bug: stop queued work and the running graders; committed records stay.
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in list(live):
            kill_group(proc)
        raise
    pool.shutdown(wait=True)
    progress.finish()
    return {s: done[s] for s in sorted(done)}
