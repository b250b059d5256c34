"""The `bpe` fixture in `--inprocess` mode: the student's real module, plus the `bpe.kit` shim.

This mode exists for debugging (breakpoints, pdb, print) and never produces a grade. Calls run in
this very process, but go through thin wrappers so that `bpe.kit.last_call` measures them exactly as
the sandboxed proxy would, and graded tests never have to know which mode runs them.
"""

from __future__ import annotations

import array
import contextlib
import functools
import shutil
import sys
import tempfile
import time
import tracemalloc
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import ModuleDoesNotImport
from . import importing
from .isolation import Isolation
from .kit import DEFAULT_READ_CAP, CallStats, StreamResult, plain_name, read_capped
from .worker import report_cores


def import_submission(parent: Path) -> types.ModuleType:
    """Import `bpe` from `parent`, forgetting any `bpe` imported before (a restart re-imports).
    When it does not import, what of it does, as the worker does (grader/sandbox/importing.py)."""
    for name in [m for m in sys.modules if m == "bpe" or m.startswith("bpe.")]:
        del sys.modules[name]
    sys.path.insert(0, str(parent))  # the student's package, found by its folder for this import only
    try:
        return importing.import_package(str(parent))
    finally:
        sys.path.remove(str(parent))


class _Recorder:
    """Times every call into the submission; keeps the last one for `bpe.kit.last_call`."""

    def __init__(self) -> None:
        self.last = CallStats(0.0, 0.0)

    def call(self, fn: Callable, args: tuple, kwargs: dict[str, Any]) -> Any:
        args = tuple(_unwrap(a) for a in args)
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        cpu0, wall0 = time.process_time(), time.perf_counter()
        try:
            return self.wrap(fn(*args, **kwargs))
        except importing.DoesNotImport as exc:  # a name of a broken module, reached inside the call
            raise _not_graded(exc) from None
        finally:
            self.last = CallStats(time.perf_counter() - wall0, time.process_time() - cpu0)

    def wrap(self, value: object) -> object:
        """Objects of the submission's own classes come back wrapped, so their methods are timed too."""
        if _is_submission_object(value):
            return LocalObject(value, self)
        return value


def _not_graded(exc: importing.DoesNotImport) -> ModuleDoesNotImport:
    d = exc.data
    return ModuleDoesNotImport(d["file"], d["line"], d["error"], d["message"], d["text"])


def _is_submission_object(value: object) -> bool:
    module = getattr(type(value), "__module__", "") or ""
    return (module == "bpe" or module.startswith("bpe.")) and not isinstance(value, type)


def _unwrap(value: object):
    return value._target if isinstance(value, LocalObject) else value


class _Callable:
    def __init__(self, target: Callable, recorder: _Recorder) -> None:
        self._target, self._recorder = target, recorder
        functools.update_wrapper(self, target, updated=())

    def __call__(self, *args, **kwargs) -> Any:
        return self._recorder.call(self._target, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        # Class attributes (classmethods such as `CharBPE.train`) are timed like any call.
        value = getattr(self._target, name)
        if callable(value) and not isinstance(value, type):
            return _Callable(value, self._recorder)
        return value

    def __repr__(self) -> str:
        return f"<in-process {self._target!r}>"


class LocalObject:
    """An instance of a submission class; attribute reads pass through, method calls are timed."""

    def __init__(self, target: object, recorder: _Recorder) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_recorder", recorder)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if callable(value) and hasattr(value, "__self__"):
            return _Callable(value, self._recorder)
        return value

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._target, name, _unwrap(value))

    def __repr__(self) -> str:
        return repr(self._target)


class InprocessKit:
    """`bpe.kit` for in-process runs: same names and results as the sandboxed `RemoteKit`."""

    contract = "kit"  # whose rules the graded tests apply (kit | cs336): the plugin sets it
    oracles = None  # what checks may ask of the oracles, where the kit has them: the plugin sets it

    isolation = Isolation.INPROCESS

    def __init__(self, owner: InprocessBpe) -> None:
        self._owner = owner
        self._scratch = Path(tempfile.mkdtemp(prefix="bpe-kit-scratch-"))
        self._timeout: float | None = None

    @property
    def last_call(self) -> CallStats:
        return self._owner._recorder.last

    def args_after(self, fn: Callable, *args, **kwargs) -> tuple:
        """`fn(*args, **kwargs)` as (result, args, kwargs): here the call sees the caller's own objects."""
        return fn(*args, **kwargs), list(args), dict(kwargs)

    def outpath(self, name: str) -> str:
        return str(self._scratch / plain_name(name))

    def read_output(self, name: str, max_bytes: int = DEFAULT_READ_CAP) -> bytes:
        return read_capped(self._scratch / plain_name(name), max_bytes)

    def encode_file_streaming(self, tok: object, path: Path, chunk_chars: int = 4096) -> StreamResult:
        target = _unwrap(tok)
        ids = array.array("q")
        # In this process the grader's own memory moves too (pytest, hypothesis, what earlier tests
        # freed), so its RSS says little of the tokenizer's: what Python allocates during the
        # stream is traced instead (tracemalloc), minus the id buffer, which is the grader's.
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start()
        with open(path, encoding="utf-8", newline="") as f:
            chunks = iter(functools.partial(f.read, chunk_chars), "")
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            cpu0, wall0 = time.process_time(), time.perf_counter()
            try:
                for i in target.encode_iterable(chunks):
                    ids.append(i)
            finally:
                self._owner._recorder.last = CallStats(
                    time.perf_counter() - wall0, time.process_time() - cpu0
                )
                peak = tracemalloc.get_traced_memory()[1]
                if not tracing:
                    tracemalloc.stop()
        growth = max(0, peak - before - sys.getsizeof(ids))
        return StreamResult(ids.tolist(), growth)

    def unwritten(self, name: str) -> BaseException | None:
        """As the sandboxed kit's, but nothing is known in process (no census): always None, and
        the call itself says."""
        return None

    def restart(self) -> None:
        self._owner._reload()

    @contextlib.contextmanager
    def timeout(self, seconds: float, cpu: float | None = None) -> Iterator[None]:
        """Recorded only: in-process calls are bounded by pytest-timeout alone."""
        previous, self._timeout = self._timeout, seconds
        try:
            yield
        finally:
            self._timeout = previous

    @contextlib.contextmanager
    def cores(self, n: int) -> Iterator[None]:
        """As the sandboxed kit's: the code sees `n` usable cores (see worker.report_cores)."""
        restore = report_cores(int(n))
        try:
            yield
        finally:
            restore()

    def close(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)


class InprocessBpe:
    """Module-shaped view of the student's `bpe` with a `kit` attribute (see module docstring)."""

    def __init__(self, parent: Path) -> None:
        self._parent = Path(parent)
        self._recorder = _Recorder()
        self.kit = InprocessKit(self)
        self._reload()

    def _reload(self) -> None:
        self.__wrapped__ = import_submission(self._parent)

    def __getattr__(self, name: str) -> Any:
        try:
            value = getattr(self.__wrapped__, name)
        except importing.DoesNotImport as exc:  # the test is not graded, as in the sandbox
            raise _not_graded(exc) from None
        if callable(value):
            return _Callable(value, self._recorder)
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self.__wrapped__)) | {"kit"})

    def __repr__(self) -> str:
        return f"<bpe (in-process) from {self._parent}>"
