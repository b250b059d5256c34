"""What the submission raised, rebuilt on the trusted side, and what its stubs will raise.

An exception from the worker comes back as data (worker.py) and is rebuilt as a `RemoteError`
subclass that also subclasses the nearest builtin exception of the student's one, so a graded test's
`pytest.raises(ValueError)` holds; a name of a module that does not import becomes
`ModuleDoesNotImport`. The stub census (`Census`), read from the first worker that imports the
submission, says which functions are still the starter's stubs: a call to one raises its
NotImplementedError here, without a worker.
"""

from __future__ import annotations

import builtins
import inspect
from dataclasses import dataclass
from typing import Any

from ..errors import BadReply, ModuleDoesNotImport
from . import wire
from .call_words import child_failure, raised

__all__ = ["Census", "EndlessIterator", "RemoteError", "rebuild_exception"]


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
        """The exception as a student should read it (call_words.raised)."""
        return raised(
            self.call,
            self.remote_type,
            self.remote_message,
            self.limit,
            self.child_failure,
            self.student_traceback,
        )


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
    def read(cls, encoded: Any) -> Census:
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


class EndlessIterator(BadReply):
    """An iterator from the submission gave more items than its input allows (proxy.ITER_MARGIN)."""
