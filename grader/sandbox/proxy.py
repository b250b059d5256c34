"""The sandboxed `bpe`: a module-shaped proxy whose calls run in a worker process (worker.py).

    with grader.sandbox.proxy.connect(Path("solution")) as ref:
        tok = ref.CharBPE.train("low lower lowest", 4)     # tok is a remote handle
        ids = tok.encode("lowest")                         # an exact list of exact ints
        ref.kit.last_call.cpu_s                            # measured from /proc, not by the worker

Each call is one exchange of the session (session.py). Values come back through `wire.decode`
(exact builtins only). Objects of the submission's classes and iterators come back as handles.
Exceptions come back as `RemoteError` subclasses that also subclass the nearest builtin exception
of the student's one (remote_errors.py).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import BadReply
from ..i18n import _
from . import wire
from .call_words import describe_call, describe_value, endless, endless_stream
from .kit import DEFAULT_READ_CAP, CallStats, StreamResult, plain_name, read_capped
from .options import Options
from .process import WorkerProcess
from .remote_errors import EndlessIterator
from .session import Session

__all__ = ["RemoteBpe", "RemoteCallable", "RemoteHandle", "RemoteKit", "connect"]

ITER_BATCH = 4096
# An iterator from the submission (encode_iterable's generator) is pulled until it ends or has given
# more items than its call's input could honestly give: a token covers at least one byte, so no
# encoder yields more ids than its input has bytes. The margin is wide; the cap bounds an iterator
# made from no text at all. Either way an endless generator is stopped in seconds, not at the
# test's time limit with millions of ids piled up in the grader.
ITER_MARGIN = 2
ITER_SLACK = 10_000
ITER_CAP = 20_000_000


def input_bytes(encoded: Any) -> int:
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


class RemoteCallable:
    """A function, class or method living in the worker; calling it is one request."""

    def __init__(self, session: Session, target: RemoteHandle | None, path: tuple[str, ...]) -> None:
        self._session, self._target, self._path = session, target, path

    def __call__(self, *args, **kwargs) -> Any:
        return self._call(args, kwargs, echo=False)

    def _call(self, args: tuple, kwargs: dict, *, echo: bool) -> Any:
        """One call; `echo`: the reply is (result, args, kwargs) as the call left its arguments."""
        s = self._session
        target = self._target._ref if isinstance(self._target, RemoteHandle) else 0
        if isinstance(self._target, RemoteHandle):
            self._target._check(s)
        encoded_args, encoded_kwargs = _encode_args(s, list(args)), _encode_args(s, dict(kwargs))
        owner = f"{self._target._cls}." if isinstance(self._target, RemoteHandle) else ""
        what = describe_call(owner + ".".join(self._path), args, kwargs, encoded_args, encoded_kwargs)
        stub = None if target else s.census.not_implemented(".".join(self._path), args, kwargs, what)
        if stub is not None:
            raise stub
        fields = {"echo": True} if echo else {}
        reply = s.request(
            "call",
            target=target,
            path=list(self._path),
            args=encoded_args,
            kwargs=encoded_kwargs,
            what=what,
            **fields,
        )
        result = reply[0] if echo else reply
        if isinstance(result, RemoteHandle):
            object.__setattr__(result, "_what", what)
            object.__setattr__(result, "_bound", item_bound(input_bytes([encoded_args, encoded_kwargs])))
        return (result, list(reply[1]), dict(reply[2])) if echo else result

    def __getattr__(self, name: str) -> RemoteCallable:
        if name.startswith("__"):
            raise AttributeError(name)
        return RemoteCallable(self._session, self._target, self._path + (name,))

    def __repr__(self) -> str:
        return f"<remote {'.'.join(self._path)}>"


def _attribute(session: Session, target: RemoteHandle | None, name: str):
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

    def __init__(self, session: Session, worker: WorkerProcess, generation: int, ref: int, cls: str) -> None:
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

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        self._check(self._session)
        return _attribute(self._session, self, name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("remote objects are read-only from the tests")

    def __iter__(self) -> RemoteHandle:
        return self

    def __next__(self) -> Any:
        """Iterators are pulled in batches, so a lazy generator stays lazy but cheap."""
        if not self._pending:
            if self._done:
                raise StopIteration
            self._check(self._session)
            if self._pulled >= self._bound:
                self._session.retire()
                raise EndlessIterator(endless(self._what, self._bound))
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
    oracles = None  # what checks may ask of the oracles, where the kit has them: the plugin sets it

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def isolation(self) -> str:
        return self._session.isolation

    @property
    def last_call(self) -> CallStats:
        return self._session.last_call

    def args_after(self, fn: RemoteCallable, *args, **kwargs) -> tuple:
        """`fn(*args, **kwargs)` as (result, args, kwargs), the arguments as the call left them: the
        worker gets copies, so a function that changes its arguments is seen only this way."""
        return fn._call(args, kwargs, echo=True)

    def outpath(self, name: str) -> str:
        return self._session.sandbox.to_view(self._session.current().scratch / plain_name(name))

    def read_output(self, name: str, max_bytes: int = DEFAULT_READ_CAP) -> bytes:
        """A file the current worker wrote (it lives as long as the worker: read it in the test)."""
        return read_capped(self._session.current().scratch_path() / plain_name(name), max_bytes)

    def encode_file_streaming(self, tok: RemoteHandle, path: Path, chunk_chars: int = 4096) -> StreamResult:
        s = self._session
        if not isinstance(tok, RemoteHandle):
            raise TypeError("encode_file_streaming needs a tokenizer made through the bpe fixture")
        tok._check(s)
        ids: list[int] = []
        what = _("{cls}.encode_iterable({file}, read {chars} chars at a time)").format(
            cls=tok._cls, file=describe_value(Path(path)), chars=f"{int(chunk_chars):,}"
        )
        bound = item_bound(Path(path).stat().st_size)

        def on_batch(batch: object) -> None:
            if type(batch) is not list or not set(map(type, batch)) <= {int}:
                raise BadReply(_("encode_iterable must yield ints"))
            ids.extend(batch)
            if len(ids) > bound:
                raise EndlessIterator(endless_stream(what, bound))

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
        session.handles = functools.partial(_handle, session)
        self.kit = RemoteKit(session)

    def __getattr__(self, name: str) -> Any:
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


def _encode_args(session: Session, value: list | dict):
    """A call's arguments for the wire: files copied into the sandbox, handles by reference,
    iterators materialized."""

    def handle(v: object) -> object:
        if isinstance(v, Path):
            return session.sandbox.copy_input(v)
        if isinstance(v, RemoteHandle):
            v._check(session)
            return {"h": [v._ref, v._cls]}
        if isinstance(v, (RemoteCallable, RemoteBpe)):
            raise TypeError("remote functions cannot be passed as arguments")
        if hasattr(v, "__next__") or hasattr(v, "readline"):
            return {"i": [_encode_args(session, x) for x in v]}
        return None

    return wire.encode(value, handle=handle)


def _handle(session: Session, worker: WorkerProcess, generation: int, ref: int | None, cls_name: str):
    """What a reply's remote object (or, `ref` None, callable) becomes (Session.handles)."""
    if ref is None:
        return _CallableMarker()  # `_attribute` turns it into a RemoteCallable
    return RemoteHandle(session, worker, generation, ref, cls_name)
