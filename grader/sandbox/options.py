"""How a sandbox isolates its workers (`Options`) and the rlimits each worker runs under (`Limits`).

Data only: the sandbox (box.py) reads them, the command line and the plugin make them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .isolation import LEVELS, Isolation

# How many tasks (processes and threads: RLIMIT_NPROC counts both) one grading may run. Courses
# size their pools by os.cpu_count(): on a 64-core node, 64 pool workers, the main process, a
# Manager, the resource tracker and a fork server, each with up to 64 threads (a BLAS pool sized the
# same way). A fork bomb stops there, inside one grading's budget.
NPROC = 68 * 64


@dataclass
class Limits:
    """rlimits of a worker. NPROC only binds an unprivileged uid (root ignores it)."""

    memory_bytes: int = 4 * 1024**3
    cpu_seconds: int = 600
    nproc: int = NPROC
    file_bytes: int = 256 * 1024**2
    open_files: int = 256

    def rlimits(self, nproc_base: int = 0) -> dict[str, list[int]]:
        return {
            "RLIMIT_AS": [self.memory_bytes, self.memory_bytes],
            "RLIMIT_CPU": [self.cpu_seconds, self.cpu_seconds + 5],
            "RLIMIT_NPROC": [nproc_base + self.nproc] * 2,
            "RLIMIT_FSIZE": [self.file_bytes, self.file_bytes],
            "RLIMIT_NOFILE": [self.open_files, self.open_files],
            "RLIMIT_CORE": [0, 0],
        }


@dataclass
class Options:
    """How to isolate workers. `namespaces=None` means: use them when root and unshare work."""

    limits: Limits = field(default_factory=Limits)
    namespaces: bool | None = None
    unprivileged: bool | None = None  # None: drop to uid 65534 whenever possible
    hide: tuple[Path, ...] = ()
    python: str | None = None  # the student's interpreter (`--python`): see grader/sandbox/student_python.py
    fork: bool = True  # each test's worker forked from one that imported the submission (forker.py)

    @classmethod
    def for_level(cls, level: str = "auto", **kw) -> Options:
        """ "auto" (the strongest available), "uid" (no namespaces) or "process-group" (neither)."""
        if level not in LEVELS:
            raise ValueError(f"isolation must be one of {', '.join(LEVELS)}")
        if level == "auto":
            return cls(**kw)
        return cls(namespaces=False, unprivileged=None if level == Isolation.UID else False, **kw)
