"""Running one function over file segments in a few worker processes.

Workers are forked, so they inherit whatever the parent prepared (a trained
tokenizer, for instance) without pickling it. When processes cannot be made
(a sandbox with a process limit, or a single core), the same function runs
in this process: results are identical either way, only slower.
"""

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 2


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def map_ordered(fn: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """Yield ``fn(item)`` for each item, in order, using up to ``workers`` processes."""
    items = list(items)
    workers = min(workers, usable_cores(), len(items))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(fn, items)
        return
    try:
        pool = multiprocessing.get_context("fork").Pool(workers)
    except Exception:  # a process limit, no /dev/shm, a daemonic parent: work here instead
        yield from map(fn, items)
        return
    with pool:
        # imap yields results in input order, each as soon as it and those before it are done.
        yield from pool.imap(fn, items, chunksize=1)
