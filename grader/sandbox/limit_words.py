"""Words for a call that ran into one of the worker's limits (options.Limits, the scratch folder's size).

A process that cannot start one more process or thread (RLIMIT_NPROC: EAGAIN from fork or clone,
"can't start new thread"), allocate memory (RLIMIT_AS), open one more file (RLIMIT_NOFILE), write
a larger file (RLIMIT_FSIZE) or fill its scratch folder is refused, and what follows often looks
like something else: a pool whose worker could not start waits for ever, a Manager whose server
could not start a thread never answers. So the limit is named with its value, whether the
student's call raised the refusal or one of its processes or threads printed it before the call
stalled, and it is one fault for every test it fails (`cause`), never a stall, an endless loop
or an overloaded machine.
"""

from __future__ import annotations

import re

from ..i18n import N_, _
from .box import SCRATCH_SIZE
from .options import Limits

PROCESSES = "processes"
MEMORY = "memory"
OPEN_FILES = "open files"
FILE_SIZE = "file size"
DISK = "disk space"

# errno numbers as Linux's messages show them ("[Errno 11] Resource temporarily unavailable").
_ERRNO = {11: PROCESSES, 12: MEMORY, 24: OPEN_FILES, 27: FILE_SIZE, 28: DISK}
_ERRNO_IN = re.compile(r"\[Errno (\d+)\]")
_OS_ERRORS = frozenset({"OSError", "BlockingIOError", "IOError", "EnvironmentError"})
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)):?\s?(.*)$")
# The refusals to start a process or thread that are not an OSError: threading's (every Python
# since 3.0) and the C API's when a thread's creation fails.
_NO_THREAD = ("can't start new thread", "can't create new thread")
# What a native library prints when its own threads are refused, and then goes on (or waits):
# OpenBLAS's "blas_thread_init: pthread_create failed for thread 1 of 64: Resource temporarily
# unavailable", libgomp's "Thread creation failed: Resource temporarily unavailable".
_NATIVE_REFUSAL = re.compile(
    r"(pthread_create failed|Thread creation failed).*Resource temporarily unavailable"
)


def limit_hit(error: str, message: str) -> str | None:
    """Which limit an exception of type name `error` with `message` says the code ran into; None
    when it names none. Only the refusals these limits cause: an EAGAIN from a non-blocking pipe
    is one too (BlockingIOError), which graded code does not use."""
    name = error.rpartition(".")[2]
    if name == "MemoryError":
        return MEMORY
    if name == "RuntimeError" and any(words in message for words in _NO_THREAD):
        return PROCESSES
    m = _ERRNO_IN.match(message)
    if m and name in _OS_ERRORS:
        return _ERRNO.get(int(m.group(1)))
    return None


def limit_in_output(output: str) -> tuple[str, str] | None:
    """(limit, the exception line) of the first refusal printed in `output` (a child's or a
    thread's traceback, which the process that waits on them never sees); None if there is none."""
    for line in output.splitlines():
        if _NATIVE_REFUSAL.search(line):  # a native library's own thread pool (OpenBLAS, OpenMP)
            return PROCESSES, line.strip()[:300]
        m = _EXCEPTION_LINE.match(line.strip()) if line and not line[0].isspace() else None
        if m:
            kind = limit_hit(m.group(1), m.group(2))
            if kind is not None:
                return kind, line.strip()[:300]
    return None


_WORDS = {
    PROCESSES: N_(
        "{what} hit the limit of {value} processes and threads that one grading may run at once "
        "(RLIMIT_NPROC, which counts threads too): {error}. Start fewer: a pool of os.cpu_count() "
        "workers with their threads fits; pools left running, or hundreds of threads in each "
        "process, do not."
    ),
    MEMORY: N_("{what} hit the memory limit of {value} per process (RLIMIT_AS): {error}."),
    OPEN_FILES: N_(
        "{what} hit the limit of {value} open files per process (RLIMIT_NOFILE): {error}. Files, "
        "pipes or pools left open?"
    ),
    FILE_SIZE: N_("{what} hit the limit of {value} per file written (RLIMIT_FSIZE): {error}."),
    DISK: N_("{what} filled the {value} of its scratch folder: {error}."),
}


def limit_value(kind: str, limits: Limits | None = None) -> str:
    """The limit's value as the feedback shows it ("4,352", "4 GiB", "64 MiB"): of `limits`, the
    worker's (options.Options.limits), else the default ones."""
    limits = limits or Limits()
    if kind == PROCESSES:
        return f"{limits.nproc:,}"
    if kind == OPEN_FILES:
        return f"{limits.open_files:,}"
    if kind == MEMORY:
        return f"{limits.memory_bytes // 2**30} GiB"
    if kind == FILE_SIZE:
        return f"{limits.file_bytes // 2**20} MiB"
    return SCRATCH_SIZE.replace("m", " MiB")


def limit_words(kind: str, what: str, error: str, limits: Limits | None = None) -> str:
    """'train_bpe(...) hit the limit of 4,352 processes and threads ...: BlockingIOError: ...'."""
    return _(_WORDS[kind]).format(what=what, value=limit_value(kind, limits), error=error)


def limit_named(
    error_type: str, message: str, what: str | None, where: str, output: str, limits: Limits | None = None
) -> tuple[str, dict] | None:
    """The limit behind the exception a call raised (`what`; `where`: the function called), as its
    words and its cause: the exception's own refusal, or one a child process or thread printed
    during the call (`output`); None when neither."""
    error = f"{error_type}: {message}" if message else error_type
    kind = limit_hit(error_type, message)
    if kind is None:
        kind, error = limit_in_output(output) or (None, error)
    if kind is None:
        return None
    return limit_words(kind, what or _("your code"), error[:300], limits), limit_cause(kind, where, limits)


def limit_cause(kind: str, where: str, limits: Limits | None = None) -> dict:
    """The fault as data (grader/charges.py): every test this limit fails is one fault, proven so,
    whichever call ran into it."""
    summary = _("your code hit the limit on {limit} ({value})").format(
        limit=_(_LIMIT_NAMES[kind]), value=limit_value(kind, limits)
    )
    return {"key": f"limit: {kind}", "where": where, "summary": summary, "one_fault": True}


_LIMIT_NAMES = {
    PROCESSES: N_("processes and threads"),
    MEMORY: N_("memory"),
    OPEN_FILES: N_("open files"),
    FILE_SIZE: N_("the size of a file"),
    DISK: N_("scratch space"),
}
