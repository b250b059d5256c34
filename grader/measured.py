"""This machine's speed, measured once per run and shared by every grading of the run.

A grading measures the machine before it can set limits: a yardstick that scales the per-test CPU
limits, and the reference solution on the speed gates' workloads (grader/calibration.py); the gates'
texts are generated too. One student's `make grade` does this once. A farm grading a class, or the
kit's own tests grading its catalogue, would do it once per submission: seconds of CPU time each,
and budgets that move from student to student with whatever the machine was doing at that moment.

So a run that grades many submissions names one file in `BPE_KIT_MEASURED` (the farm and the kit's
tests do), and takes its figures there before its gradings start (calibration.measure_first), while
nothing else of the run is busy; a figure not taken then is measured by the first grading to need
it, under a lock. Every grading of the run reads the same figures, so every student of the run
meets the same budgets. Without the variable each grading measures for itself, as before. The file holds only
figures the trusted side measured; nothing of a submission is ever written to it or read from it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

ENV = "BPE_KIT_MEASURED"
T = TypeVar("T")


def run_file() -> Path | None:
    """The run's shared file, when the run has one."""
    value = os.environ.get(ENV, "")
    return Path(value) if value else None


def shared(key: str, measure: Callable[[], T]) -> T:
    """`measure()`, once per run: the first grading to ask measures and stores the figure (JSON
    data), the others read it. Gradings that ask at the same moment wait for the one measuring, so
    the run measures once. Without a run file, or one that cannot be used, this is `measure()`."""
    path = run_file()
    if path is None:
        return measure()
    try:
        with _locked(path, key):
            figures = _read(path)
            if key in figures:
                return figures[key]
            value = measure()
            with _locked(path, ""):  # the file itself: other figures may be written meanwhile
                figures = _read(path)
                figures[key] = value
                _write(path, figures)
            return value
    except OSError:
        return measure()


def shared_text(name: str, make: Callable[[], str]) -> str:
    """A generated text, made once per run and kept beside the run file (the speed gates' texts
    are megabytes, the same in every grading); without a run file, `make()`."""
    path = run_file()
    if path is None:
        return make()
    text_path = path.with_name(f"{path.stem}.{name}.txt")
    try:
        with _locked(path, name):
            if not text_path.is_file():
                tmp = text_path.with_suffix(".tmp")
                tmp.write_bytes(make().encode("utf-8"))  # bytes: "\r\n" stays as made
                tmp.replace(text_path)
            return text_path.read_bytes().decode("utf-8")
    except OSError:
        return make()


@contextlib.contextmanager
def _locked(path: Path, key: str) -> Iterator[None]:
    """One lock per figure: measuring one (the reference) may need another (its texts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(key.encode()).hexdigest()[:12]
    with open(path.with_name(f"{path.stem}.{name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, figures: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
