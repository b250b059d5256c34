"""Run the gradings a test module will need two at a time, ahead of the tests that check them.

A grading takes seconds and the machine has two cores, so a module's fixture submits the jobs of
every test pytest selected in that module at once (`Prefetch.start`); each test then waits for
its own result. A job that raised re-raises in its test, nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

JOBS = 2


class Prefetch:
    def __init__(self, job: Callable[[str], object], jobs: int = JOBS) -> None:
        self._job = job
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="catalogue")
        self._futures: dict[str, Future] = {}

    def start(self, keys) -> None:
        for key in keys:
            if key not in self._futures:
                self._futures[key] = self._pool.submit(self._job, key)

    def result(self, key: str):
        self.start([key])
        return self._futures[key].result()

    def close(self) -> None:
        for fut in self._futures.values():
            fut.cancel()
        self._pool.shutdown(wait=True)


def selected_params(request, argname: str) -> list[str]:
    """The values of `argname` for the tests of this module that this session will run, in order."""
    found = []
    for item in request.session.items:
        spec = getattr(item, "callspec", None)
        if item.module is request.module and spec is not None and argname in spec.params:
            found.append(spec.params[argname])
    return list(dict.fromkeys(found))
