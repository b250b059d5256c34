"""The sandboxed `bpe`: a module-shaped proxy whose calls run in a worker process (worker.py).

    with grader.sandbox.remote.connect(Path("solution")) as ref:
        tok = ref.CharBPE.train("low lower lowest", 4)     # tok is a remote handle
        ids = tok.encode("lowest")                         # an exact list of exact ints
        ref.kit.last_call.cpu_s                            # measured from /proc, not by the worker

Values come back through `wire.decode` (exact builtins only). Objects of the submission's classes
and iterators come back as handles. Exceptions come back as `RemoteError` subclasses that also
subclass the nearest builtin exception of the student's one. A crash, a timeout, or an unreadable
reply raises a `GradingAbort` and the next call gets a fresh worker.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import i18n
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
from ..i18n import _, ngettext
from . import procstats, wire
from .box import Limits, Options, Sandbox
from .call_words import (
    BUSY,
    WAITING,
    child_failure,
    describe_call,
    describe_value,
    likely_cause,
    stall_kind,
    stall_words,
)
from .kit import DEFAULT_READ_CAP, CallStats, StreamResult, plain_name, read_capped
from .limit_words import limit_cause, limit_hit, limit_in_output, limit_words
from .process import WorkerProcess
from .procstats import PeakMeter

__all__ = [
    "BadReply",
    "CallStalled",
    "CallTimeout",
    "CpuLimitExceeded",
    "GradingAbort",
    "RemoteBpe",
    "RemoteError",
    "Session",
    "WorkerCrashed",
    "connect",
]

DEFAULT_CALL_TIMEOUT = 60.0
# The import's own limit (budgets.IMPORT_CPU_S, scaled to the machine by the plugin) is CPU time
# like every limit here; its wall-clock backstop only stops an import that waits.
IMPORT_WALL_FACTOR = 3.0
IMPORT_WALL_SLACK_S = 30.0
ITER_BATCH = 4096
# An iterator from the submission (encode_iterable's generator) is pulled until it ends or has given
# more items than its call's input could honestly give: a token covers at least one byte, so no
# encoder yields more ids than its input has bytes. The margin is wide; the cap bounds an iterator
# made from no text at all. Either way an endless generator is stopped in seconds, not at the
# test's time limit with millions of ids piled up in the grader.
ITER_MARGIN = 2
ITER_SLACK = 10_000
ITER_CAP = 20_000_000


# ------------------------------------------------------------------------------------ exceptions
class RemoteError(Exception):
    """Raised by the submission inside the worker. `.student_traceback`: their frames only."""

    remote_type: str = "Exception"

    def __init__(self, message: str = "", student_traceback: str = "") -> None:
        super().__init__(message)
        self.remote_message = message
        self.student_traceback = student_traceback
        self.child_failure: str | None = None  # how a child process it started failed, if one did
        self.call: str | None = None  # the call that raised it, in words (call_words.describe_call)
        self.limit: str | None = None  # the limit it ran into, in words (limit_words.py), if one
        self.where: tuple[str, int] | None = None  # (file, line) of their code that raised it

    def __str__(self) -> str:
        return self.remote_message

    def feedback(self) -> str:
        """The exception as a student should read it: the call that raised it (its arguments
        summarised), type, message, then where in their code."""
        said = {"call": self.call, "error": self.remote_type, "message": self.remote_message}
        if self.call:
            text = (
                _("{call} raised {error}: {message}") if self.remote_message else _("{call} raised {error}")
            )
        else:
            text = (
                _("Your code raised {error}: {message}")
                if self.remote_message
                else _("Your code raised {error}")
            )
        text = self.limit or text.format(**said)
        if self.child_failure and self.child_failure not in text:
            text += "\n" + _("(Meanwhile {failure}.)").format(failure=self.child_failure)
        if self.student_traceback:
            text += "\n" + _("Raised at (your code, most recent call last):") + "\n" + self.student_traceback
        return text


_exception_classes: dict[tuple[str, type], type] = {}


def _nearest_builtin(mro: list[str]) -> type[BaseException]:
    for qualified in mro:
        module, _dot, name = qualified.rpartition(".")
        candidate = getattr(builtins, name, None) if module == "builtins" else None
        if isinstance(candidate, type) and issubclass(candidate, Exception):
            return candidate
    return Exception


def rebuild_exception(info: dict) -> RemoteError | ModuleDoesNotImport:
    """A trusted exception mirroring the student's one (see module docstring); for a name of a
    module that does not import (grader/sandbox/importing.py), `ModuleDoesNotImport`."""
    if isinstance(info.get("not_imported"), dict):
        return _not_imported(info["not_imported"])
    name = str(info.get("type", "Exception"))[:100]
    mro = [str(x) for x in info.get("mro", [])][:50] if isinstance(info.get("mro"), list) else []
    base = _nearest_builtin(mro)
    key = (name, base)
    cls = _exception_classes.get(key)
    if cls is None:
        cls = type(
            name if name.isidentifier() else "StudentError",
            (RemoteError, base),
            {"remote_type": name, "__module__": "submission"},
        )
        _exception_classes[key] = cls
    message, tb = str(info.get("message", "")), str(info.get("traceback", ""))
    try:
        exc = cls(message, tb)
    except TypeError:  # builtin bases with stricter constructors (UnicodeDecodeError...)
        exc = cls.__new__(cls)
        exc.args = (message,)
        exc.remote_message, exc.student_traceback = message, tb
        exc.child_failure = exc.call = exc.limit = None
    where = info.get("where")
    if isinstance(where, list) and len(where) == 2 and isinstance(where[0], str) and type(where[1]) is int:
        exc.where = (where[0][:300], where[1])
    else:
        exc.where = None
    return exc


def _not_imported(data: dict) -> ModuleDoesNotImport:
    """Rebuilt from the worker's data, checked and capped like any reply."""
    text = lambda key: str(data.get(key) or "")[:300]  # noqa: E731
    line = data.get("line")
    return ModuleDoesNotImport(
        text("file") or "bpe",
        line if type(line) is int and line > 0 else None,
        text("error"),
        text("message"),
        text("text"),
    )


_KINDS = {int(k): k for k in inspect._ParameterKind}
_NOT_IMPLEMENTED_MRO = [f"builtins.{c.__name__}" for c in NotImplementedError.__mro__]


@dataclass(frozen=True)
class Census:
    """What the first worker that imported the submission said of it (worker.stub_census), checked
    like any reply: its public functions and classes, and the stubs among them with their message
    and parameters. A malformed entry is left out: its calls go to a worker as usual."""

    callables: frozenset[str] = frozenset()
    stubs: dict[str, tuple[str, inspect.Signature]] | None = None

    @classmethod
    def read(cls, encoded) -> Census:
        try:
            raw = wire.decode(encoded)
        except wire.WireError:
            raw = None
        if (
            type(raw) is not dict
            or type(raw.get("stubs")) is not dict
            or type(raw.get("callables")) is not list
        ):
            return cls(stubs={})
        names = frozenset(n for n in raw["callables"][:500] if type(n) is str and n.isidentifier())
        stubs = {}
        for name, data in list(raw["stubs"].items())[:500]:
            if type(name) is not str or not all(part.isidentifier() for part in name.split(".")[:2]):
                continue
            try:
                params = [
                    inspect.Parameter(n, _KINDS[k], default=None if d else inspect.Parameter.empty)
                    for n, k, d in data["params"]
                    if type(n) is str and type(k) is int and type(d) is bool
                ]
                if type(data["message"]) is str and len(params) == len(data["params"]):
                    stubs[name] = (data["message"][:4000], inspect.Signature(params))
            except (TypeError, ValueError, KeyError):
                continue
        return cls(names, stubs)

    def not_implemented(self, name: str, args: tuple, kwargs: dict, what: str) -> BaseException | None:
        """The NotImplementedError calling stub `name` with these arguments raises, as a worker's
        would come back, naming the call (`what`: describe_call); None when `name` is no stub or
        the arguments do not bind (then the call goes to a worker, whose TypeError is the real one)."""
        stub = (self.stubs or {}).get(name)
        if stub is None:
            return None
        try:
            stub[1].bind(*args, **kwargs)
        except TypeError:
            return None
        return self.stub_error(name, what)

    def stub_error(self, name: str, what: str) -> BaseException | None:
        """The NotImplementedError any call to stub `name` raises (None: `name` is no stub)."""
        stub = (self.stubs or {}).get(name)
        if stub is None:
            return None
        exc = rebuild_exception(
            {"type": "NotImplementedError", "mro": _NOT_IMPLEMENTED_MRO, "message": stub[0]}
        )
        exc.child_failure = child_failure("")
        exc.call = what
        return exc


def _cpu(seconds: float) -> str:
    """A limit in the same digits as its basis (budgets.PerTestLimits): '0.53 s', '4.2 s', '22 s'."""
    return (_("{seconds:.2g} s") if seconds < 10 else _("{seconds:.0f} s")).format(seconds=seconds)


def _lowest(*caps: float | None) -> float | None:
    """The CPU cap that comes first (None: no cap)."""
    return min((c for c in caps if c is not None), default=None)


# ------------------------------------------------------------------------------------ session
class Session:
    """A sandbox plus its current worker; restarts workers after crashes and between tests."""

    def __init__(self, submission_parent: Path, options: Options | None = None) -> None:
        self.sandbox = Sandbox(Path(submission_parent), options)
        self.worker: WorkerProcess | None = None
        self.spare: WorkerProcess | None = None
        self.generation = 0
        self.call_timeout = DEFAULT_CALL_TIMEOUT
        self.test_deadline: float | None = None  # set per test by the plugin: the test's own budget
        self._explicit_timeout = False  # inside `bpe.kit.timeout(...)`
        self.cpu_limit: float | None = None  # CPU seconds a call may use, inside `bpe.kit.timeout(..., cpu=)`
        # Set per test by the plugin (grader/budgets.PerTestLimits): the CPU seconds all of the
        # test's calls may use together, outside `bpe.kit.timeout`; and what they have used so far.
        self.test_cpu_limit: float | None = None
        self.test_cpu_per_call = 0.0  # ...plus this for each call made in the test (this one too)
        self.test_cpu_per_child = 0.0  # ...and this for each process its calls ran (a pool's children)
        self.test_children = 0
        self.test_pool_calls = 0  # ...and the slow import once for each call that ran any (see below)
        self.test_max_children = 0  # processes of one call that earn it the allowance, at most
        self.test_cpu_basis = ""
        self.test_cpu_used = 0.0
        self.test_calls = 0
        # ...and the CPU seconds one call may use (plus one allowance), and the slowest call so far.
        self.call_cpu_limit: float | None = None
        self.call_cpu_basis = ""
        self.test_slowest_call = 0.0
        self.cores: int | None = None  # the cores the submission is told it has (`bpe.kit.cores`)
        self.last_call = CallStats(0.0, 0.0)
        self._ids = 0
        self.finished_output = ""
        # The import of the submission, which every fresh worker makes (so every test): no test's
        # time, under a limit of its own (set by the plugin, scaled like the others). The slowest
        # import seen, for the report's header; and, once one was stopped (its CPU limit used up, or
        # it waited, or its process crashed), how: every later call then raises that again
        # (ImportTooSlow, ImportFailed) without starting a worker, so no test waits for it twice.
        self.import_cpu_limit = IMPORT_CPU_S
        self.import_cpu_s = 0.0
        self.import_failure: Callable[[], ModuleDoesNotImport] | None = None
        self.census = Census()  # read from the first worker that imports the submission

    @property
    def isolation(self) -> str:
        return self.sandbox.isolation

    def current(self) -> WorkerProcess:
        """The live worker, started if needed. A spare is always starting in the background, so
        the next test does not wait for a Python start-up and the submission's import."""
        if self.worker is None:
            self.worker = self.spare or WorkerProcess(self.sandbox)
            self.spare = None
            self.generation += 1
            try:
                self.worker.wait_ready()
            except GradingAbort:
                self.retire()
                raise
            self.spare = WorkerProcess(self.sandbox)
        return self.worker

    def recycle(self) -> str:
        """End the current worker (and all it started); return what it printed."""
        out = self.finished_output
        self.finished_output = ""
        if self.worker is not None:
            self.worker.close()
            out += self.worker.take_output()
            self.worker = None
        return out

    def close(self) -> str:
        out = self.recycle()
        if self.spare is not None:
            self.spare.close()
            self.spare = None
        self.sandbox.close()
        return out

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

    def prepare(self) -> None:
        """Before a test: its worker started and the submission imported, outside the test's limits
        (its wall-clock ones too). A failed import is remembered (`import_failure`): the test's
        first call raises it. A worker that does not start is left for that call to meet again."""
        if self.import_failure is not None or (self.census.stubs and not self._slow_import()):
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
            self.import_failure = functools.partial(ImportTooSlow, _cpu(self.import_cpu_limit))
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
        self.retire()
        if self.spare is not None:
            self.spare.close()
            self.spare = None

    def child_allowance(self) -> float:
        """CPU seconds each process a call runs earns it (a fast import is paid by this)."""
        return self.test_cpu_per_child

    def children_allowance(self, children: int) -> float:
        """CPU seconds the `children` processes one call ran earn it: each its allowance, and,
        when the submission's import is slow, that import once (a spawned pool child imports the
        package again, a forked one does not: which one a child is cannot be told from outside,
        so one import is paid for, not one per child, and a fork pool of 32 cannot buy 32)."""
        return self.child_allowance() * children + (self._slow_import() if children else 0.0)

    def _slow_import(self) -> float:
        """The slowest import seen, when over IMPORT_NOTED_S (else 0): the report names it too."""
        return self.import_cpu_s if self.import_cpu_s > IMPORT_NOTED_S else 0.0

    def retire(self) -> None:
        """After a crash: keep its output for the test's feedback, start afresh next call."""
        if self.worker is not None:
            self.worker.close()
            self.finished_output += self.worker.take_output()
            self.worker = None

    # -- one exchange ----------------------------------------------------------------------------
    def request(self, op: str, *, on_batch=None, meter=False, what: str | None = None, **fields) -> Any:
        """One exchange. `what` names the call (`describe_call`) for the words of a timeout."""
        if self.import_failure is not None:
            raise self.import_failure()
        worker = self.current()
        self._await_import(worker)
        self._ids += 1
        message = {"id": self._ids, "op": op, **fields}
        if self.cores is not None:
            message["cores"] = self.cores
        start = time.monotonic()
        deadline = start + self.call_timeout
        test_wall = self.test_deadline is not None and not self._explicit_timeout
        if test_wall:
            test_wall = self.test_deadline < deadline  # the test's own limit, not this call's, ends it
            deadline = min(deadline, self.test_deadline)
        output_mark = len(worker.output)
        cpu0, wall0 = worker.cpu_seconds(), time.perf_counter()
        test_capped = self.test_cpu_limit is not None and not self._explicit_timeout
        test_cap = call_room = explicit_room = None
        if not self._explicit_timeout:
            self.test_calls += op in ("call", "stream")  # reading an attribute is no call
        if test_capped:
            test_cap = cpu0 + max(0.0, self.test_cpu_allowed() - self.test_cpu_used)
            if self.call_cpu_limit is not None:
                call_room = self.call_cpu_limit + self.test_cpu_per_call
        elif self.cpu_limit is not None:
            explicit_room = self.cpu_limit
        worker.child_allowance = self.child_allowance() if test_capped else 0.0
        worker.import_allowance = self._slow_import() if test_capped else 0.0
        worker.max_children = 0 if self._explicit_timeout else self.test_max_children
        sampler = _RssSampler(worker.pid) if meter else None
        worker.begin_call()
        try:
            worker.cpu_cap = _lowest(
                test_cap, *(None if room is None else cpu0 + room for room in (call_room, explicit_room))
            )
            call_capped = call_room is not None and worker.cpu_cap < test_cap
            worker.send(message, deadline)
            while True:
                reply = worker.receive(deadline)
                if "batch" in reply and on_batch is not None:
                    on_batch(self._decode(reply["batch"], worker))
                    continue
                break
        except GradingAbort as exc:
            worker.drain_output()
            output = worker.output[output_mark:].decode("utf-8", "replace")
            child, samples, children = (
                child_failure(output),
                list(worker.cpu_samples),
                worker.children_counted(),
            )
            self.retire()
            what = what or _("the call into your code ({op})").format(op=op)
            capped = "call" if call_capped else "test" if test_capped else None
            limit = limit_in_output(output)
            if type(exc) is CallTimeout and test_wall and not limit:
                raise self._test_wall_out(exc, what, child, samples) from None
            raise self._explain(
                exc, what, deadline - start, child, capped, samples, children, limit
            ) from None
        finally:
            worker.cpu_cap = None
            if sampler is not None:
                sampler.stop()
            if self.worker is worker:
                cpu_end = worker.cpu_seconds()
                self.last_call = CallStats(time.perf_counter() - wall0, max(0.0, cpu_end - cpu0))
                if not self._explicit_timeout:
                    self.test_cpu_used += max(0.0, cpu_end - cpu0)
                    self.test_slowest_call = max(self.test_slowest_call, self.last_call.cpu_s)
                    self.test_children += worker.children_counted()
                    self.test_pool_calls += worker.children_counted() > 0
        if reply.get("id") != self._ids:
            self.retire()
            raise BadReply(_("the worker answered a different question"))
        if "ok" in reply:
            value = self._decode(reply["ok"], worker)
            return (value, sampler.growth()) if sampler is not None else value
        if "err" in reply:
            info = self._decode(reply["err"], worker)
            if type(info) is not dict:
                raise BadReply(_("the worker sent a malformed error"))
            exc = rebuild_exception(info)
            if isinstance(exc, RemoteError) and op in ("call", "stream", "next"):
                exc.call = what
            worker.drain_output()
            output = worker.output[output_mark:].decode("utf-8", "replace")
            exc.child_failure = child_failure(output)
            if isinstance(exc, RemoteError):
                self._name_limit(exc, what, fields, output, self.sandbox.options.limits)
            if issubclass(type(exc), MemoryError):  # the process may be unusable after this
                self.retire()
            raise exc
        if "bad" in reply:
            raise BadReply(
                _("your code returned a value that cannot be checked: {why}").format(
                    why=self._unchecked(reply, worker)
                )
            )
        if "fatal" in reply:
            reason = str(self._decode(reply["fatal"], worker))[:500]
            self.retire()
            raise WorkerCrashed(
                _("{what} raised {reason}, which ends the process running it").format(
                    what=what or _("your code"), reason=reason
                )
            )
        self.retire()
        raise BadReply(_("the worker sent a reply of unknown kind"))

    @staticmethod
    def _name_limit(exc: RemoteError, what: str | None, fields: dict, output: str, limits: Limits) -> None:
        """When the exception is a limit's refusal (limit_words.py), or a child process or thread
        printed one during the call: the limit's words and its cause (one fault wherever it struck)."""
        error = f"{exc.remote_type}: {exc.remote_message}" if exc.remote_message else exc.remote_type
        kind = limit_hit(exc.remote_type, exc.remote_message)
        if kind is None:
            kind, error = limit_in_output(output) or (None, error)
        if kind is None:
            return
        exc.limit = limit_words(kind, what or _("your code"), error[:300], limits)
        where = ".".join(p for p in fields.get("path", ()) if isinstance(p, str))
        exc.cause = limit_cause(kind, where, limits)

    def _unchecked(self, reply: dict, worker) -> str:
        """Why the worker could not send what the code returned: a size cap's measure (wire.too_big)
        in the report's language, else the worker's own words."""
        said = str(self._decode(reply["bad"], worker))[:300]
        measured = self._decode(reply.get("measured", {"d": []}), worker)
        if type(measured) is not dict:
            return said
        kind, count, mib = (measured.get(k) for k in ("kind", "count", "mib"))
        if not (type(kind) is str and type(count) is int and type(mib) is int):
            return said
        words = {
            "characters": _("a {kind} of {count} characters is larger than the {mib} MiB reply limit"),
            "items": _("a {kind} of {count} items is larger than the {mib} MiB reply limit"),
        }.get(measured.get("unit"))
        return words.format(kind=kind[:40], count=f"{count:,}", mib=mib) if words else said

    def _with_children(self, basis: str, children: int) -> str:
        """A limit's basis, and the processes the call ran, which earned it more (`children_allowance`)."""
        if not children:
            return basis
        if self._slow_import():
            runs = ngettext(
                "it ran {count} more process, allowed once the {seconds} your package takes to import",
                "it ran {count} more processes, allowed once the {seconds} your package takes to import",
                children,
            )
        else:
            runs = ngettext("it ran {count} more process", "it ran {count} more processes", children)
        runs = runs.format(count=children, seconds=_cpu(self._slow_import()))
        return _("{basis}; {runs}").format(basis=basis, runs=runs)

    def test_cpu_allowed(self) -> float:
        """CPU seconds the test's calls may use so far (see budgets.PerTestLimits)."""
        # At least one allowance, even before the first call: the test's first exchange may be an
        # attribute read, and it may pay for what the reference's recorded time leaves out (a first
        # compile); a recorded 0.00 s must not be a limit of 0.
        return (
            (self.test_cpu_limit or 0.0)
            + self.test_cpu_per_call * max(1, self.test_calls)
            + self.child_allowance() * self.test_children
            + self._slow_import() * self.test_pool_calls
        )

    def _test_wall_out(
        self, exc: CallTimeout, what: str, child: str | None, samples: list[tuple[float, float]]
    ) -> CallTimeout:
        """The test's own wall-clock limit ran out during this call: said with the test's figures
        (its limit, its calls, their CPU time), never blamed on the machine or on this call alone."""
        text = ngettext(
            "{what} did not answer in time: this test's own limit of {limit:.0f} s of wall-clock time ran "
            "out during it, after {calls} call into your code that used {cpu:.1f} s of CPU time in all.",
            "{what} did not answer in time: this test's own limit of {limit:.0f} s of wall-clock time ran "
            "out during it, after {calls} calls into your code that used {cpu:.1f} s of CPU time in all.",
            self.test_calls,
        ).format(
            what=what,
            limit=self.call_timeout,
            calls=self.test_calls,
            cpu=self.test_cpu_used + (samples[-1][1] if samples else 0.0),
        )
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
        ran = self.children_allowance(children)  # the allowance of the processes it ran
        said = limit_words(limit[0], what, limit[1], self.sandbox.options.limits) if limit else None
        if said and isinstance(exc, CallTimeout):
            text = i18n.sentences(
                said,
                _("What waited on it never finished, and was stopped after {seconds:.1f} s.").format(
                    seconds=samples[-1][0] if samples else seconds
                ),
            )
            new = type(exc)(text)
            if isinstance(exc, CallStalled):
                new.idle_s = exc.idle_s
            new.child_failure, new.samples, new.limit = child, list(samples), said
            new.cause = limit_cause(limit[0], "", self.sandbox.options.limits)
            return new
        if isinstance(exc, CpuLimitExceeded) and capped == "call":
            text = _(
                "{what} did not answer in time: stopped when it had used its limit of {limit} of CPU time "
                "for one call ({basis}); an endless loop, or far too slow?"
            ).format(
                what=what,
                limit=_cpu(self.call_cpu_limit + self.test_cpu_per_call + ran),
                basis=self._with_children(self.call_cpu_basis, children),
            )
        elif isinstance(exc, CpuLimitExceeded) and capped == "test":
            text = _(
                "{what} did not answer in time: stopped when this test had used its limit of {limit} of CPU "
                "time ({basis}); an endless loop, or far too slow?"
            ).format(
                what=what,
                limit=_cpu(self.test_cpu_allowed() + ran),
                basis=self._with_children(self.test_cpu_basis, children),
            )
        elif isinstance(exc, CpuLimitExceeded):
            text = _("{what} used up its {limit:.1f} s of CPU time and was stopped").format(
                what=what, limit=self.cpu_limit or 0
            )
        elif isinstance(exc, CallStalled):
            text = _("{what} was stopped: {why}").format(
                what=what, why=stall_words(WAITING, exc.idle_s, 0.0, still=True)
            )
        elif isinstance(exc, CallTimeout):
            kind = stall_kind(list(samples))
            if kind == BUSY:
                text = _(
                    "{what} did not answer in time: stopped after {seconds:.1f} s of wall-clock time (an "
                    "endless loop, or far too slow?)"
                ).format(what=what, seconds=seconds)
            else:
                wall_s, cpu_s = samples[-1]
                text = _(
                    "{what} did not answer in time: stopped after {seconds:.1f} s of wall-clock time."
                ).format(what=what, seconds=seconds)
                text = i18n.sentences(text, stall_words(kind, wall_s, cpu_s))
        else:
            text = (
                str(exc) if str(exc).startswith(what) else _("{what}: {error}").format(what=what, error=exc)
            )
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
            new.limit, new.cause = said, limit_cause(limit[0], "", self.sandbox.options.limits)
        return new

    def _decode(self, raw, worker: WorkerProcess):
        def handle(ref, cls_name):
            if ref is None:
                return _CallableMarker()  # `_attribute` turns it into a RemoteCallable
            return RemoteHandle(self, worker, self.generation, ref, cls_name)

        try:
            return wire.decode(raw, handle=handle)
        except wire.WireError as e:
            self.retire()
            raise BadReply(_("the worker sent an unreadable value ({error})").format(error=e)) from None

    # -- arguments ---------------------------------------------------------------------------
    def encode_args(self, value):
        def handle(v):
            if isinstance(v, Path):
                return self.sandbox.copy_input(v)
            if isinstance(v, RemoteHandle):
                v._check(self)
                return {"h": [v._ref, v._cls]}
            if isinstance(v, (RemoteCallable, RemoteBpe)):
                raise TypeError("remote functions cannot be passed as arguments")
            if hasattr(v, "__next__") or hasattr(v, "readline"):
                return {"i": [self.encode_args(x) for x in v]}
            return None

        return wire.encode(value, handle=handle)


class _RssSampler:
    """Peak RSS growth of a pid: VmHWM reset before, plus the RSS of it and its descendants
    sampled every 2 ms by a thread (so memory parked in a child process counts too).

    In namespace mode the worker has no /proc at all, so it cannot reset its own VmHWM; sampling
    covers the other mode."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.meter = PeakMeter(pid) if pid else None
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.002):
            rss = procstats.tree_rss_bytes(self.pid) if self.pid else None
            if rss:
                self.peak = max(self.peak, rss)

    def stop(self) -> None:
        if not self._stop.is_set():
            self._stop.set()
            self._thread.join()
            if self.meter is not None:
                self.final = max(self.meter.growth(), self.peak - self.meter.base)

    def growth(self) -> int:
        self.stop()
        return max(0, getattr(self, "final", 0))


# ------------------------------------------------------------------------------------ proxies
def input_bytes(encoded) -> int:
    """UTF-8 bytes of all the text in a call's (encoded) arguments, iterator chunks included."""
    if type(encoded) is str:
        return len(encoded.encode("utf-8", "surrogatepass"))
    if type(encoded) is list:
        return sum(input_bytes(v) for v in encoded)
    if type(encoded) is dict:
        return sum(input_bytes(v) for v in encoded.values())
    return 0


def item_bound(n_bytes: int) -> int:
    """How many items an iterator made from `n_bytes` of text may yield (see ITER_MARGIN)."""
    return min(ITER_CAP, ITER_MARGIN * n_bytes + ITER_SLACK)


class EndlessIterator(BadReply):
    """An iterator from the submission gave more items than its input allows (see ITER_MARGIN)."""


class RemoteCallable:
    """A function, class or method living in the worker; calling it is one request."""

    def __init__(self, session: Session, target, path: tuple[str, ...]) -> None:
        self._session, self._target, self._path = session, target, path

    def __call__(self, *args, **kwargs):
        s = self._session
        target = self._target._ref if isinstance(self._target, RemoteHandle) else 0
        if isinstance(self._target, RemoteHandle):
            self._target._check(s)
        encoded_args, encoded_kwargs = s.encode_args(list(args)), s.encode_args(dict(kwargs))
        owner = f"{self._target._cls}." if isinstance(self._target, RemoteHandle) else ""
        what = describe_call(owner + ".".join(self._path), args, kwargs, encoded_args, encoded_kwargs)
        stub = None if target else s.census.not_implemented(".".join(self._path), args, kwargs, what)
        if stub is not None:
            raise stub
        result = s.request(
            "call", target=target, path=list(self._path), args=encoded_args, kwargs=encoded_kwargs, what=what
        )
        if isinstance(result, RemoteHandle):
            object.__setattr__(result, "_what", what)
            object.__setattr__(result, "_bound", item_bound(input_bytes([encoded_args, encoded_kwargs])))
        return result

    def __getattr__(self, name: str) -> RemoteCallable:
        if name.startswith("__"):
            raise AttributeError(name)
        return RemoteCallable(self._session, self._target, self._path + (name,))

    def __repr__(self) -> str:
        return f"<remote {'.'.join(self._path)}>"


def _attribute(session: Session, target, name: str):
    ref = target._ref if isinstance(target, RemoteHandle) else 0
    if not ref and name in session.census.callables:  # the answer is known: no worker needed
        return RemoteCallable(session, target, (name,))
    if ref and name in target._methods:  # read before: a call looks the name up again in the worker
        return RemoteCallable(session, target, (name,))
    value = session.request(
        "getattr", target=ref, name=name, what=_("reading bpe attribute {name}").format(name=repr(name))
    )
    if isinstance(value, _CallableMarker):
        if ref:
            target._methods.add(name)
        return RemoteCallable(session, target, (name,))
    return value


class _CallableMarker:
    """Decoded from `{"c": name}`: the attribute read was a function, class or method."""


class RemoteHandle:
    """An object living in the worker (a CharBPE, a BPETokenizer, an iterator...)."""

    def __init__(self, session: Session, worker, generation: int, ref: int, cls: str) -> None:
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_worker", worker)
        object.__setattr__(self, "_generation", generation)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_cls", cls)
        object.__setattr__(self, "_pending", [])
        object.__setattr__(self, "_done", False)
        object.__setattr__(self, "_pulled", 0)
        object.__setattr__(self, "_bound", ITER_CAP)  # narrowed by the call that made it
        object.__setattr__(self, "_what", _("the {cls} your code returned").format(cls=cls))
        # Names read before that were callables: `tok.encode(text)` a thousand times is then a
        # thousand calls, not a thousand attribute reads as well. Nothing is lost: each call finds
        # `path` on the object in the worker again, so a method that is gone raises there.
        object.__setattr__(self, "_methods", set())

    def _check(self, session: Session) -> None:
        if session is not self._session or session.worker is not self._worker:
            raise RuntimeError(
                _(
                    "this {cls} object belonged to an earlier worker process "
                    "(each test, crash or restart starts a fresh one); create it again"
                ).format(cls=self._cls)
            )

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self._check(self._session)
        return _attribute(self._session, self, name)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError("remote objects are read-only from the tests")

    def __iter__(self):
        return self

    def __next__(self):
        """Iterators are pulled in batches, so a lazy generator stays lazy but cheap."""
        if not self._pending:
            if self._done:
                raise StopIteration
            self._check(self._session)
            if self._pulled >= self._bound:
                self._session.retire()
                raise EndlessIterator(
                    _(
                        "{what} yielded more than {bound} items without ending "
                        "(more than its input could give): is it an endless generator?"
                    ).format(what=self._what, bound=f"{self._bound:,}")
                )
            items, done = self._session.request(
                "next",
                target=self._ref,
                n=ITER_BATCH,
                what=_("pulling items from {what}").format(what=self._what),
            )
            object.__setattr__(self, "_pulled", self._pulled + len(items))
            self._pending.extend(reversed(items))
            object.__setattr__(self, "_done", done)
            if not self._pending:
                raise StopIteration
        return self._pending.pop()

    def __repr__(self) -> str:
        return f"<a {self._cls} object>"


class RemoteKit:
    """`bpe.kit` for the sandboxed proxy (see CONTRACT: the `bpe.kit` namespace)."""

    contract = "kit"  # whose rules the graded tests apply (kit | cs336): the plugin sets it

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def isolation(self) -> str:
        return self._session.isolation

    @property
    def last_call(self) -> CallStats:
        return self._session.last_call

    def outpath(self, name: str) -> str:
        return self._session.sandbox.to_view(self._session.current().scratch / plain_name(name))

    def read_output(self, name: str, max_bytes: int = DEFAULT_READ_CAP) -> bytes:
        """A file the current worker wrote (it lives as long as the worker: read it in the test)."""
        return read_capped(self._session.current().scratch_path() / plain_name(name), max_bytes)

    def encode_file_streaming(self, tok, path: Path, chunk_chars: int = 4096) -> StreamResult:
        s = self._session
        if not isinstance(tok, RemoteHandle):
            raise TypeError("encode_file_streaming needs a tokenizer made through the bpe fixture")
        tok._check(s)
        ids: list[int] = []
        what = _("{cls}.encode_iterable({file}, read {chars} chars at a time)").format(
            cls=tok._cls, file=describe_value(Path(path)), chars=f"{int(chunk_chars):,}"
        )
        bound = item_bound(Path(path).stat().st_size)

        def on_batch(batch):
            if type(batch) is not list or not set(map(type, batch)) <= {int}:
                raise BadReply(_("encode_iterable must yield ints"))
            ids.extend(batch)
            if len(ids) > bound:
                raise EndlessIterator(
                    _(
                        "{what} yielded more than {bound} ids without ending (more than the file "
                        "could give): is it an endless generator?"
                    ).format(what=what, bound=f"{bound:,}")
                )

        _count, growth = s.request(
            "stream",
            what=what,
            target=tok._ref,
            path=s.sandbox.copy_input(Path(path)),
            chunk=int(chunk_chars),
            on_batch=on_batch,
            meter=True,
        )
        return StreamResult(ids, growth)

    def unwritten(self, name: str) -> BaseException | None:
        """The NotImplementedError a call to the package's function `name` raises when it is still
        a stub (the census), for a test to raise before it prepares large inputs for that call;
        None when it is not, or that is not known yet."""
        return self._session.census.stub_error(name, f"{name}(...)")

    def restart(self) -> None:
        self._session.retire()

    @contextlib.contextmanager
    def timeout(self, seconds: float, cpu: float | None = None) -> Iterator[None]:
        """Each call inside is stopped after `seconds` of wall time, or once the worker (with
        every process it started) has used `cpu` seconds of CPU time on it, whichever comes first.
        Either raises CallTimeout (CpuLimitExceeded for the CPU cap) and restarts the worker."""
        with self._session.limits(seconds, cpu):
            yield

    @contextlib.contextmanager
    def cores(self, n: int) -> Iterator[None]:
        """Calls inside see `n` usable cores (os.cpu_count, sched_getaffinity...), whatever the
        machine has: a trainer that splits its work per core is graded splitting it."""
        previous, self._session.cores = self._session.cores, int(n)
        try:
            yield
        finally:
            self._session.cores = previous

    def close(self) -> None:
        self._session.close()


class RemoteBpe:
    """Module-shaped proxy to the submission's `bpe` package, plus `kit`."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.kit = RemoteKit(session)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _attribute(self._session, None, name)

    def __repr__(self) -> str:
        return f"<bpe (sandboxed, {self._session.isolation})>"


@contextlib.contextmanager
def connect(package_parent_dir: Path, **opts) -> Iterator[RemoteBpe]:
    """A sandboxed `bpe` from the folder holding `bpe/`; the sandbox is removed on exit."""
    proxy = RemoteBpe(Session(Path(package_parent_dir), Options(**opts) if opts else None))
    try:
        yield proxy
    finally:
        proxy.kit.close()
