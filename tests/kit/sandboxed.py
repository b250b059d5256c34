"""Run a command that may execute hostile code: inside a fresh PID namespace, under prlimit caps.

Shared by the kit's tests (grader, catalogue, ...). The rule: any test that runs a hostile
submission (fork bomb, kill(-1), memory bomb, daemons...) goes through `run_sandboxed`, on top of
the grader's own sandbox. When the namespace cannot be made (not root, no unshare), the test is
skipped rather than run unprotected.

    from sandboxed import run_sandboxed, grade_sandboxed, PYTHON, KIT_ROOT
    proc = grade_sandboxed(submission_dir, out_dir, tests_dir=..., rubric=...)
    proc.returncode, proc.stdout, json.loads((out_dir / "results.json").read_text())

`ordinary_user()` names an ordinary (not root) account for the tests that grade as one, as on a
Slurm node or a TA's laptop: this process's own when it is not root, else one made here when
missing (CI runs as root).
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.sandbox.options import NPROC as GRADING_NPROC

KIT_ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
# Above one grading's own budget (grader/sandbox/box.py NPROC, per uid or user namespace), which
# must be what stops a fork bomb: this cap only stops what gets past it.
NPROC = GRADING_NPROC + 256
MEMORY_BYTES = 8_000_000_000


@functools.lru_cache(maxsize=1)
def can_sandbox() -> bool:
    """Root and a working `unshare --pid --fork --mount-proc`."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("prlimit"):
        return False
    probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True)
    return probe.returncode == 0


def run_sandboxed(
    argv: list[str],
    *,
    timeout: float = 300,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    nproc: int = NPROC,
    memory_bytes: int = MEMORY_BYTES,
) -> subprocess.CompletedProcess:
    """`argv` in a new PID namespace (every process it leaves behind dies with it), with
    prlimit caps on processes and address space; text output captured. Skips if impossible."""
    if not can_sandbox():
        pytest.skip("needs root and unshare to run hostile code safely")
    wrapped = [
        "unshare",
        "--pid",
        "--fork",
        "--mount-proc",
        "--kill-child",
        "prlimit",
        f"--nproc={nproc}",
        f"--as={memory_bytes}",
        "--",
        *map(str, argv),
    ]
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("PYTHONPATH", str(KIT_ROOT))
    return subprocess.run(
        wrapped, cwd=cwd or KIT_ROOT, env=full_env, capture_output=True, text=True, timeout=timeout
    )


def grade_sandboxed(
    submission: Path,
    out: Path,
    *,
    tests_dir: Path | None = None,
    rubric: Path | None = None,
    extra: list[str] = (),
    timeout: float = 300,
) -> subprocess.CompletedProcess:
    """`python -m grader grade SUBMISSION --out OUT [...]` through `run_sandboxed`."""
    argv = [PYTHON, "-m", "grader", "grade", str(submission), "--out", str(out)]
    if tests_dir is not None:
        argv += ["--tests-dir", str(tests_dir)]
    if rubric is not None:
        argv += ["--rubric", str(rubric)]
    return run_sandboxed([*argv, *extra], timeout=timeout)


ORDINARY_USER = "bpekit-user"
USER_LOCK = "/tmp/bpe-kit-useradd.lock"


@functools.lru_cache(maxsize=1)
def ordinary_user() -> str:
    """The name of an ordinary account that may make user namespaces: this process's own when it
    is not root, else ORDINARY_USER (made here when missing: CI runs as root). Skips if none may."""
    import pwd

    if os.geteuid() != 0:
        entry, as_entry = pwd.getpwuid(os.getuid()), {}
    else:
        entry = _made_user()
        as_entry = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount", "--net", "--ipc", "true"],
        **as_entry,
        cwd="/",
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"an ordinary user may not make user namespaces here: {probe.stderr.strip()}")
    return entry.pw_name


def _made_user():
    """ORDINARY_USER's password entry, the account made first if missing (as root)."""
    import pwd

    # Test processes run at once: one makes the user while the others wait (two `useradd`s at
    # once fail on /etc/passwd's lock, and a skip would hide every row graded as the user).
    with open(USER_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = None
        for attempt in range(3):  # something else on the machine may hold /etc/passwd's lock
            try:
                return pwd.getpwnam(ORDINARY_USER)
            except KeyError:
                if not shutil.which("useradd"):
                    pytest.skip(f"no `useradd` to make the user {ORDINARY_USER}")
                time.sleep(attempt)
                made = subprocess.run(
                    ["useradd", "--create-home", ORDINARY_USER], capture_output=True, text=True
                )
        try:
            return pwd.getpwnam(ORDINARY_USER)
        except KeyError:
            pytest.fail(f"cannot make the user {ORDINARY_USER}: {made.stderr.strip()}")
