"""Pools under each start method, as CS336 trainers use them to pre-tokenize chunks in parallel.

The workers run a function of this package, so each child must import `cs336_basics`: under spawn
and forkserver that is a fresh interpreter, which finds it only through the parent's sys.path."""

from __future__ import annotations

import multiprocessing


def square(x: int) -> int:
    return x * x


def check_pools() -> None:
    for method in ("fork", "spawn", "forkserver"):
        with multiprocessing.get_context(method).Pool(2) as pool:
            got = pool.map(square, [2, 3])
        if got != [4, 9]:
            raise RuntimeError(f"a {method} pool gave {got}")
