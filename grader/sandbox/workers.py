"""Where each test's worker comes from: forked from a zygote that imported the submission once
(forked.py), or started fresh; either way a spare is always ready before it is needed.

Forking is the rule where the sandbox allows it (box.Sandbox.forks). A fork the trusted side
cannot prove as isolated as a fresh worker (forked.ForkRefused) ends forking for the grading, and
the tests go on with fresh workers, which grade the same: the zygote then ends as soon as no
worker forked from it is in use (its end ends them all).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import GradingAbort
from .box import Sandbox
from .forked import ForkedWorker, ForkRefused, Zygote
from .process import WorkerProcess


class Workers:
    """A sandbox's current worker, its spare, and the zygote they are forked from."""

    def __init__(self, sandbox: Sandbox, await_import: Callable[[WorkerProcess], None]) -> None:
        self.sandbox = sandbox
        self._await_import = await_import  # the session's: the import under its own limits
        self.worker: WorkerProcess | None = None
        self.spare: WorkerProcess | None = None
        self.generation = 0
        self.finished_output = ""
        self.forking = sandbox.forks
        self.zygote: Zygote | None = None

    def current(self) -> WorkerProcess:
        """The live worker, started if needed. A spare is always starting in the background, so
        the next test does not wait for a Python start-up and the submission's import."""
        if self.worker is None:
            self.worker = self.spare or self._new()
            self.spare = None
            self.generation += 1
            try:
                self.worker.wait_ready()
            except ForkRefused:
                self.stop_forking()
                self.worker = None
                return self.current()
            except GradingAbort:
                self.retire()
                raise
            self.spare = self._new()
        return self.worker

    def _new(self) -> WorkerProcess:
        """A forked worker, or a fresh one. A zygote that does not start or import ends forking:
        its import's failure is the session's to tell (`_await_import` recorded it), as a fresh
        worker's would be, and a fresh worker starts as it would have."""
        if self.forking:
            try:
                return ForkedWorker(self._zygote())
            except (ForkRefused, GradingAbort):
                self.stop_forking()
        return WorkerProcess(self.sandbox)

    def _zygote(self) -> Zygote:
        """The zygote, started and its import done (under the import's limits) on first need."""
        if self.zygote is None:
            zygote = self.zygote = Zygote(self.sandbox)
            try:
                zygote.wait_ready()
                self._await_import(zygote)
            except GradingAbort:
                zygote.close()
                self.zygote = None
                raise
            zygote.ready_to_fork()
        return self.zygote

    def stop_forking(self) -> None:
        """Fresh workers from now on; a forked spare is replaced when next needed."""
        self.forking = False
        if isinstance(self.spare, ForkedWorker):
            self.spare.close()
            self.spare = None
        self._end_zygote()

    def _end_zygote(self) -> None:
        if self.zygote is not None and not self.forking and not isinstance(self.worker, ForkedWorker):
            self.zygote.close()
            self.zygote = None

    def recycle(self) -> str:
        """End the current worker (and all it started); return what it printed."""
        out = self.finished_output
        self.finished_output = ""
        if self.worker is not None:
            self.worker.close()
            out += self.worker.take_output()
            self.worker = None
        self._end_zygote()
        return out

    def retire(self) -> None:
        """After a crash: keep its output for the test's feedback, start afresh next call."""
        if self.worker is not None:
            self.worker.close()
            self.finished_output += self.worker.take_output()
            self.worker = None
        self._end_zygote()

    def give_up(self) -> None:
        """The import failed: no worker of this package is wanted again."""
        self.forking = False
        self.retire()
        if self.spare is not None:
            self.spare.close()
            self.spare = None

    def close(self) -> str:
        out = self.recycle()
        if self.spare is not None:
            self.spare.close()
            self.spare = None
        self.forking = False
        self._end_zygote()
        return out
