"""Run the gradings a test module will need two at a time, ahead of the tests that check them.

A grading takes seconds and the machine has two cores, so a module's fixture submits the jobs of
every test pytest selected in that module at once (`Prefetch.ahead`); each test then waits for
its own result. A job that raised re-raises in its test, nowhere else.

Under pytest-xdist (`make test`) the workers already fill the cores, and a worker does not know
which tests it will be sent: there each grading runs when its first test asks for it, one at a
time, and a row's tests share it because they carry the row's `xdist_group` (`row_group`) and
`--dist loadgroup` sends them to one worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

UNDER_XDIST = bool(os.environ.get("PYTEST_XDIST_WORKER"))
JOBS = 1 if UNDER_XDIST else 2


class Prefetch:
    def __init__(self, job: Callable[[str], object], jobs: int = JOBS) -> None:
        self._job = job
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="catalogue")
        self._futures: dict[str, Future] = {}

    def start(self, keys: Iterable[str]) -> None:
        for key in keys:
            if key not in self._futures:
                self._futures[key] = self._pool.submit(self._job, key)

    def ahead(self, keys: Iterable[str]) -> None:
        """Start `keys` now, unless xdist spreads the tests (then each starts when first asked for)."""
        if not UNDER_XDIST:
            self.start(keys)

    def result(self, key: str):
        self.start([key])
        return self._futures[key].result()

    def close(self) -> None:
        for fut in self._futures.values():
            fut.cancel()
        self._pool.shutdown(wait=True)


def selected_params(request, argname: str, **where) -> list[str]:
    """The values of `argname` for the tests of this module that this session will run, in order;
    `where`: only of the tests whose other parameters have these values."""
    found = []
    for item in request.session.items:
        spec = getattr(item, "callspec", None)
        if (
            item.module is request.module
            and spec is not None
            and argname in spec.params
            and all(spec.params.get(k) == v for k, v in where.items())
        ):
            found.append(spec.params[argname])
    return list(dict.fromkeys(found))


def row_group(name: str) -> pytest.MarkDecorator:
    """The mark that keeps every test of catalogue row `name` on one xdist worker."""
    return pytest.mark.xdist_group(f"catalogue-{name}")
