"""A grading's sandbox and its current worker: one exchange at a time, under the limits in force.

The session has workers (workers.py: a spare always warming up, or forks of one that imported the
submission) import the submission under the import's own limit, sends each request with its deadline and CPU cap, and turns what comes back
into values or exceptions. A crash, a timeout, or an unreadable reply raises a `GradingAbort` and
the next call gets a fresh worker. Which limits hold is the plugin's (`begin_test`, per_test.py)
or the test's own (`limits`, for `bpe.kit.timeout`); the words of a failure are call_words.py's;
what a remote object becomes is the proxy's (proxy.py sets `handles`).
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..budgets import IMPORT_CPU_S, IMPORT_NOTED_S
from ..errors import (
    BadReply,
    CallStalled,
    CallTimeout,
    CpuLimitExceeded,
    GradingAbort,
    ImportFailed,
    ImportTooSlow,
    ModuleDoesNotImport,
    WorkerCrashed,
)
from ..i18n import _
from . import wire
from .box import Sandbox
from .call_words import (
    child_failure,
    cpu_seconds,
    ends_the_process,
    likely_cause,
    other_abort,
    out_of_call_cpu,
    out_of_own_cpu,
    out_of_test_cpu,
    out_of_test_wall,
    out_of_wall,
    refused_then_waited,
    stalled,
    unchecked,
    with_children,
)
from .kit import CallStats
from .limit_words import limit_cause, limit_in_output, limit_named, limit_words
from .options import Options
from .per_test import CALL, NO_TEST, CallCaps, TestLimits, TestUsage
from .process import WorkerProcess
from .remote_errors import Census, RemoteError, rebuild_exception
from .rss_sampler import RssSampler
from .workers import Workers

DEFAULT_CALL_TIMEOUT = 60.0
# The import's own limit (budgets.IMPORT_CPU_S, scaled to the machine by the plugin) is CPU time
# like every limit here; its wall-clock backstop only stops an import that waits.
IMPORT_WALL_FACTOR = 3.0
IMPORT_WALL_SLACK_S = 30.0

# What a remote object or callable in a reply becomes: (worker, its generation, ref, class name);
# ref None for a callable (wire's {"c": name}).
Handles = Callable[[WorkerProcess, int, "int | None", str], Any]


@dataclass(frozen=True)
class _Exchange:
    """One request under way: its clocks, where its output starts, and its CPU cap."""

    start: float  # time.monotonic()
    deadline: float
    test_wall: bool  # the test's own wall-clock limit, not the call's, ends it
    output_mark: int
    cpu0: float  # the worker's CPU seconds when it started
    wall0: float  # time.perf_counter()
    caps: CallCaps


class Session:
    """A sandbox plus its current worker; restarts workers after crashes and between tests."""

    def __init__(self, submission_parent: Path, options: Options | None = None) -> None:
        self.sandbox = Sandbox(Path(submission_parent), options)
        self.handles: Handles | None = None  # set by the proxy (proxy.RemoteBpe)
        self.call_timeout = DEFAULT_CALL_TIMEOUT
        self.test_deadline: float | None = None  # the running test's own wall-clock limit
        self._explicit_timeout = False  # inside `bpe.kit.timeout(...)`
        self.cpu_limit: float | None = None  # CPU seconds a call may use, inside `bpe.kit.timeout(..., cpu=)`
        # The running test's limits (the plugin's), and what its calls used outside `bpe.kit.timeout`.
        self.test_limits = NO_TEST
        self.test_used = TestUsage()
        self.cores: int | None = None  # the cores the submission is told it has (`bpe.kit.cores`)
        self.last_call = CallStats(0.0, 0.0)
        self._ids = 0
        # The import of the submission, which every fresh worker makes (so every test): no test's
        # time, under a limit of its own (set by the plugin, scaled like the others). The slowest
        # import seen, for the report's header; and, once one was stopped (its CPU limit used up, or
        # it waited, or its process crashed), how: every later call then raises that again
        # (ImportTooSlow, ImportFailed) without starting a worker, so no test waits for it twice.
        self.import_cpu_limit = IMPORT_CPU_S
        self.import_cpu_s = 0.0
        self.import_failure: Callable[[], ModuleDoesNotImport] | None = None
        self.census = Census()  # read from the first worker that imports the submission
        self.workers = Workers(self.sandbox, self._await_import)

    @property
    def isolation(self) -> str:
        return self.sandbox.isolation

    # -- workers -----------------------------------------------------------------------------------
    @property
    def worker(self) -> WorkerProcess | None:
        return self.workers.worker

    def current(self) -> WorkerProcess:
        """The live worker, started if needed (workers.py)."""
        return self.workers.current()

    def recycle(self) -> str:
        """End the current worker (and all it started); return what it printed."""
        return self.workers.recycle()

    def retire(self) -> None:
        """After a crash: keep its output for the test's feedback, start afresh next call."""
        self.workers.retire()

    def close(self) -> str:
        out = self.workers.close()
        self.sandbox.close()
        return out

    # -- limits ------------------------------------------------------------------------------------
    def begin_test(self, limits: TestLimits) -> None:
        """Before a test's calls: its limits hold, and nothing is used yet. The wall-clock one
        stays the calls' default after the test, until the next test's."""
        self.test_limits, self.test_used = limits, TestUsage()
        self.test_deadline = time.monotonic() + limits.wall_s if limits.wall_s else None
        self.call_timeout = limits.wall_s or self.call_timeout

    def end_test(self) -> TestUsage:
        """After a test: no test's limits hold until the next one; what its calls used."""
        self.test_limits, self.test_deadline = NO_TEST, None
        return self.test_used

    @contextlib.contextmanager
    def limits(self, seconds: float, cpu: float | None = None) -> Iterator[None]:
        """Inside: each call gets `seconds` of wall time (instead of the test's own deadline) and at
        most `cpu` seconds of CPU time; the limits before are restored on the way out."""
        previous = self.call_timeout, self._explicit_timeout, self.cpu_limit
        self.call_timeout, self._explicit_timeout = float(seconds), True
        self.cpu_limit = None if cpu is None else float(cpu)
        try:
            yield
        finally:
            self.call_timeout, self._explicit_timeout, self.cpu_limit = previous

    def slow_import(self) -> float:
        """The slowest import seen, when over IMPORT_NOTED_S (else 0): the report names it too."""
        return self.import_cpu_s if self.import_cpu_s > IMPORT_NOTED_S else 0.0

    def test_cpu_allowed(self) -> float:
        """CPU seconds the running test's calls may use so far (per_test.TestLimits.allowed)."""
        return self.test_limits.allowed(self.test_used, self.slow_import())

    def children_allowance(self, children: int) -> float:
        """CPU seconds the `children` processes one call ran earn it (per_test.TestLimits)."""
        return self.test_limits.children_allowance(children, self.slow_import())

    def _caps(self, cpu0: float) -> CallCaps:
        """The CPU cap of a call starting at `cpu0`: the test's, or `bpe.kit.timeout`'s (or none)."""
        if self.test_limits.cpu_s is not None and not self._explicit_timeout:
            return self.test_limits.caps(cpu0, self.test_used, self.slow_import())
        return CallCaps(None if self.cpu_limit is None else cpu0 + self.cpu_limit)

    # -- the import --------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Before a test: its worker started and the submission imported, outside the test's limits
        (its wall-clock ones too). A failed import is remembered (`import_failure`): the test's
        first call raises it. A worker that does not start is left for that call to meet again."""
        if self.import_failure is not None or (self.census.stubs and not self.slow_import()):
            # A submission with stubs left (Census) may need no worker in this test at all; its
            # first call, if any, imports under the same limit, still charged to no test, but
            # inside the test's wall clock (pytest-timeout's): so only when the import is fast.
            return
        try:
            self._await_import(self.current())
        except GradingAbort:
            pass

    def _await_import(self, worker: WorkerProcess) -> None:
        """Until a fresh worker has imported the submission, under the import's own CPU limit: no
        test or call pays for it (a package whose tests import torch spends seconds there, and each
        test's worker imports afresh), and a test's wall-clock deadline moves by the time it took."""
        if worker.imported:
            return
        started = time.monotonic()
        worker.child_allowance, worker.import_allowance, worker.max_children = 0.0, 0.0, 0
        worker.cpu_cap = self.import_cpu_limit  # since the worker started: Python's start-up, then the import
        worker.begin_call()
        try:
            worker.wait_imported(started + IMPORT_WALL_FACTOR * self.import_cpu_limit + IMPORT_WALL_SLACK_S)
        except CpuLimitExceeded:
            self._give_up_import()
            self.import_failure = functools.partial(ImportTooSlow, cpu_seconds(self.import_cpu_limit))
            raise self.import_failure() from None
        except GradingAbort as exc:
            worker.drain_output()
            output = worker.output.decode("utf-8", "replace")
            child, samples = child_failure(output), list(worker.cpu_samples)
            self._give_up_import()
            words = _("importing your bpe package")
            explained = self._explain(
                exc, words, time.monotonic() - started, child, None, samples, limit=limit_in_output(output)
            )
            self.import_failure = functools.partial(ImportFailed, str(explained))
            raise self.import_failure() from None
        finally:
            worker.cpu_cap = None
        worker.import_cpu_s = worker.cpu_seconds()
        if self.census.stubs is None:
            self.census = Census.read(worker.census)
        self.import_cpu_s = max(self.import_cpu_s, worker.import_cpu_s)
        if self.test_deadline is not None:
            self.test_deadline += time.monotonic() - started

    def _give_up_import(self) -> None:
        """The import failed: end its worker, and the spare importing the same package."""
        self.workers.give_up()

    # -- one exchange ------------------------------------------------------------------------------
    def request(
        self,
        op: str,
        *,
        on_batch: Callable[[Any], None] | None = None,
        meter: bool = False,
        what: str | None = None,
        **fields,
    ) -> Any:
        """One exchange. `what` names the call (`describe_call`) for the words of a timeout;
        `on_batch` takes the batches a stream sends before its reply; `meter`: the reply comes with
        the peak memory the call added (rss_sampler.py)."""
        if self.import_failure is not None:
            raise self.import_failure()
        worker = self.current()
        self._await_import(worker)
        message = self._message(op, fields)
        exchange = self._begin(worker, op)
        sampler = RssSampler(worker.pid) if meter else None
        worker.begin_call()
        try:
            worker.cpu_cap = exchange.caps.cap
            reply = self._exchange(worker, message, exchange.deadline, on_batch)
        except GradingAbort as exc:
            what = what or _("the call into your code ({op})").format(op=op)
            raise self._stopped(exc, worker, exchange, what) from None
        finally:
            worker.cpu_cap = None
            if sampler is not None:
                sampler.stop()
            self._settle(worker, exchange)
        return self._answer(reply, worker, op, what, fields, exchange.output_mark, sampler)

    def _message(self, op: str, fields: dict) -> dict:
        self._ids += 1
        message = {"id": self._ids, "op": op, **fields}
        if self.cores is not None:
            message["cores"] = self.cores
        return message

    def _begin(self, worker: WorkerProcess, op: str) -> _Exchange:
        """The clocks, the output mark and the CPU cap of a call about to be sent; the worker's
        allowances for the processes it may run."""
        start = time.monotonic()
        deadline = start + self.call_timeout
        test_wall = self.test_deadline is not None and not self._explicit_timeout
        if test_wall:
            test_wall = self.test_deadline < deadline  # the test's own limit, not this call's, ends it
            deadline = min(deadline, self.test_deadline)
        output_mark = len(worker.output)
        cpu0, wall0 = worker.cpu_seconds(), time.perf_counter()
        if not self._explicit_timeout:
            self.test_used.calls += op in ("call", "stream")  # reading an attribute is no call
        caps = self._caps(cpu0)
        test_capped = caps.whose is not None
        worker.child_allowance = self.test_limits.per_child_s if test_capped else 0.0
        worker.import_allowance = self.slow_import() if test_capped else 0.0
        worker.max_children = 0 if self._explicit_timeout else self.test_limits.max_children
        return _Exchange(start, deadline, test_wall, output_mark, cpu0, wall0, caps)

    def _exchange(
        self, worker: WorkerProcess, message: dict, deadline: float, on_batch: Callable[[Any], None] | None
    ) -> dict:
        """Send the request; hand each batch that comes before the reply to `on_batch`."""
        worker.send(message, deadline)
        while True:
            reply = worker.receive(deadline)
            if "batch" in reply and on_batch is not None:
                on_batch(self._decode(reply["batch"], worker))
                continue
            return reply

    def _settle(self, worker: WorkerProcess, exchange: _Exchange) -> None:
        """After the call, if its worker lives: what it cost, charged to the test outside
        `bpe.kit.timeout`; the wall time the call was given while at work (process.STRETCH) moves
        the test's own deadline too."""
        if self.test_deadline is not None:
            self.test_deadline += worker.stretched_s
        if self.worker is not worker:
            return
        cpu_s = max(0.0, worker.cpu_seconds() - exchange.cpu0)
        self.last_call = CallStats(time.perf_counter() - exchange.wall0, cpu_s)
        if not self._explicit_timeout:
            self.test_used.charge(cpu_s, worker.children_counted())

    def _answer(
        self,
        reply: dict,
        worker: WorkerProcess,
        op: str,
        what: str | None,
        fields: dict,
        output_mark: int,
        sampler: RssSampler | None,
    ):
        """The reply as the caller's value, or the exception it stands for."""
        if reply.get("id") != self._ids:
            self.retire()
            raise BadReply(_("the worker answered a different question"))
        if "ok" in reply:
            value = self._decode(reply["ok"], worker)
            return (value, sampler.growth()) if sampler is not None else value
        if "err" in reply:
            raise self._raised(reply, worker, op, what, fields, output_mark)
        if "bad" in reply:
            raise BadReply(
                _("your code returned a value that cannot be checked: {why}").format(
                    why=self._unchecked(reply, worker)
                )
            )
        if "fatal" in reply:
            reason = str(self._decode(reply["fatal"], worker))[:500]
            self.retire()
            raise WorkerCrashed(ends_the_process(what, reason))
        self.retire()
        raise BadReply(_("the worker sent a reply of unknown kind"))

    def _raised(
        self, reply: dict, worker: WorkerProcess, op: str, what: str | None, fields: dict, output_mark: int
    ):
        """The exception the submission raised, rebuilt, naming the call, the limit it ran into and
        how a child process failed meanwhile (when either happened)."""
        info = self._decode(reply["err"], worker)
        if type(info) is not dict:
            raise BadReply(_("the worker sent a malformed error"))
        exc = rebuild_exception(info)
        if isinstance(exc, RemoteError) and op in ("call", "stream", "next"):
            exc.call = what
        worker.drain_output()
        output = worker.output[output_mark:].decode("utf-8", "replace")
        exc.child_failure = child_failure(output)
        if isinstance(exc, RemoteError):  # one fault wherever the limit struck
            where = ".".join(p for p in fields.get("path", ()) if isinstance(p, str))
            named = limit_named(
                exc.remote_type, exc.remote_message, what, where, output, self.sandbox.options.limits
            )
            if named is not None:
                exc.limit, exc.cause = named
        if issubclass(type(exc), MemoryError):  # the process may be unusable after this
            self.retire()
        return exc

    def _unchecked(self, reply: dict, worker: WorkerProcess) -> str:
        """Why the worker could not send what the code returned (call_words.unchecked)."""
        said = str(self._decode(reply["bad"], worker))[:300]
        return unchecked(said, self._decode(reply.get("measured", {"d": []}), worker))

    # -- a call that was stopped -------------------------------------------------------------------
    def _stopped(
        self, exc: GradingAbort, worker: WorkerProcess, exchange: _Exchange, what: str
    ) -> GradingAbort:
        """The call was stopped (a limit, a crash, an unreadable reply): its worker retired, and
        the failure in words that name the call and why."""
        worker.drain_output()
        output = worker.output[exchange.output_mark :].decode("utf-8", "replace")
        child, samples, children = child_failure(output), list(worker.cpu_samples), worker.children_counted()
        self.retire()
        limit = limit_in_output(output)
        if type(exc) is CallTimeout and exchange.test_wall and not limit:
            return self._test_wall_out(exc, what, child, samples)
        seconds = exchange.deadline - exchange.start + worker.stretched_s
        return self._explain(exc, what, seconds, child, exchange.caps.whose, samples, children, limit)

    def _test_wall_out(
        self, exc: CallTimeout, what: str, child: str | None, samples: list[tuple[float, float]]
    ) -> CallTimeout:
        """The test's own wall-clock limit ran out during this call: said with the test's figures
        (its limit, its calls, their CPU time), never blamed on the machine or on this call alone."""
        used = self.test_used
        cpu_s = used.cpu_s + (samples[-1][1] if samples else 0.0)
        text = out_of_test_wall(what, self.call_timeout, used.calls, cpu_s)
        if child:
            text += "\n" + likely_cause(child)
        new = type(exc)(text)
        new.child_failure = child
        new.samples = []
        return new

    def _explain(
        self,
        exc: GradingAbort,
        what: str,
        seconds: float,
        child: str | None,
        capped: str | None = None,
        samples: list[tuple[float, float]] = (),
        children: int = 0,
        limit: tuple[str, str] | None = None,
    ) -> GradingAbort:
        """The same failure, in words that name the call, its input and its limit, and say how a
        child process it started failed (when one did): never a bare "did not answer". When one of
        its processes or threads was refused by a limit (`limit`: limit_words.limit_in_output), that
        limit is the cause: never a stall, an endless loop or an overloaded machine."""
        limits = self.sandbox.options.limits
        said = limit_words(limit[0], what, limit[1], limits) if limit else None
        if said and isinstance(exc, CallTimeout):
            text = refused_then_waited(said, samples[-1][0] if samples else seconds)
        else:
            text = self._stop_words(exc, what, seconds, capped, samples, children)
            if said:  # a crash after a limit's refusal: the refusal is the likely cause
                text += "\n" + said
            elif child:
                text += "\n" + likely_cause(child)
        new = type(exc)(text)
        if isinstance(exc, CallStalled):
            new.idle_s = exc.idle_s
        new.child_failure = child
        new.samples = list(samples)
        if said:
            new.limit, new.cause = said, limit_cause(limit[0], "", limits)
        return new

    def _stop_words(
        self,
        exc: GradingAbort,
        what: str,
        seconds: float,
        capped: str | None,
        samples: list[tuple[float, float]],
        children: int,
    ) -> str:
        """Why the call was stopped: the limit it used up (whose), a stall, its wall-clock time."""
        if isinstance(exc, CpuLimitExceeded):
            return self._cpu_words(what, capped, children)
        if isinstance(exc, CallStalled):
            return stalled(what, exc.idle_s)
        if isinstance(exc, CallTimeout):
            return out_of_wall(what, seconds, samples)
        return other_abort(what, str(exc))

    def _cpu_words(self, what: str, capped: str | None, children: int) -> str:
        """The CPU limit the call used up, with its figure and basis: one call's, the test's, or
        its own (`bpe.kit.timeout(..., cpu=)`)."""
        ran = self.children_allowance(children)  # the allowance of the processes it ran
        test = self.test_limits
        if capped is None:
            return out_of_own_cpu(what, self.cpu_limit or 0)
        if capped == CALL:
            basis = with_children(test.call_cpu_basis, children, self.slow_import())
            return out_of_call_cpu(what, test.call_cpu_s + test.per_call_s + ran, basis)
        basis = with_children(test.cpu_basis, children, self.slow_import())
        return out_of_test_cpu(what, self.test_cpu_allowed() + ran, basis)

    # -- values ------------------------------------------------------------------------------------
    def _decode(self, raw: Any, worker: WorkerProcess):
        """A reply's value; its remote objects and callables as the proxy makes them (`handles`)."""
        make = self.handles
        handle = (
            None
            if make is None
            else (lambda ref, cls_name: make(worker, self.workers.generation, ref, cls_name))
        )
        try:
            return wire.decode(raw, handle=handle)
        except wire.WireError as e:
            self.retire()
            raise BadReply(_("the worker sent an unreadable value ({error})").format(error=e)) from None
