"""Byte-compile a sandbox's copies once, so that no worker compiles them again.

A grade starts a fresh worker for every test, and each worker imports the worker runtime, `regex`
and the submission. The copies carry no `__pycache__` (a submission's own caches are never
trusted) and a worker may not write one (it runs with -B, on read-only copies), so each of them
compiled about 7,000 lines from source: some 0.1 s of CPU per test. Compiled here, once, next to
the sealed copies, every worker reads them instead; a copy's mtime never moves after it is
sealed, so the timestamped .pyc files stay valid.

The kit's own files are compiled in this process. A submission's are compiled in a child process
under caps on its memory and CPU time: compiling never runs the code, but a file may be made to
make the compiler itself slow or large. Whatever fails to compile here is left as it is: the worker
meets the same error on import and reports it as it always has.
"""

from __future__ import annotations

import compileall
import subprocess
import sys
from pathlib import Path

# For a submission's files (at most 20 MiB of them, box.SUBMISSION_MAX_BYTES): enough for any
# honest package many times over, and small enough that nothing made to blow up the compiler
# holds the grade up.
CHILD_CPU_S = 20
CHILD_MEMORY = 1 << 30
CHILD_WALL_S = 60

_CHILD = (
    "import compileall, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))\n"
    "resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "compileall.compile_dir(sys.argv[1], quiet=2, workers=1)\n"
)


def compile_trusted(folder: Path) -> None:
    """The kit's own copies (the worker runtime, `regex`): compiled in this process."""
    compileall.compile_dir(str(folder), quiet=2, workers=1)


def compile_submission(folder: Path, python: str = sys.executable) -> None:
    """A submission's copy, by the kit's `python` in a capped child process that reads no site,
    environment or user folder. Best effort: a failure only leaves the workers compiling it
    themselves."""
    code = _CHILD.format(cpu=CHILD_CPU_S, mem=CHILD_MEMORY)
    try:
        subprocess.run(
            [python, "-I", "-S", "-c", code, str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=CHILD_WALL_S,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        )
    except (OSError, subprocess.TimeoutExpired):
        pass
