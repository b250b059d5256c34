"""`--python`: the sandboxed worker runs under the student's interpreter (e.g. their repo's venv).

The worker still starts under the grader's interpreter, which confines it (mounts, rlimits, an
unprivileged uid) and only then exec's the student's one (worker.become): nothing of theirs ever runs before
the confinement. Only the interpreter and its site-packages are theirs; the sandbox, the wire and
the limits are the same. In namespace mode the dirs the interpreter needs (the venv, its base
Python) may sit under a folder the sandbox covers (/root, /tmp, the kit...): they are bound back,
read-only, at their own paths.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..errors import PythonError

COVERED = ("/tmp", "/var/tmp", "/dev", "/proc")  # covered by the mount plan besides its hides


def default_for(repo: Path) -> str | None:
    """The repository's own `.venv/bin/python`, when it has one."""
    candidate = Path(repo) / ".venv" / "bin" / "python"
    return os.path.abspath(candidate) if os.path.isfile(candidate) else None


def checked(python: str | os.PathLike) -> str:
    """An absolute path to an executable file (not resolved: a venv is found through its link)."""
    path = os.path.abspath(os.fspath(python))
    if not os.path.isfile(path):
        raise PythonError(f"{path}: --python: no such interpreter")
    if not os.access(path, os.X_OK):
        raise PythonError(f"{path}: --python: not executable")
    return path


def version(python: str | None) -> str | None:
    """The interpreter's Python version, read without running it (nothing of a student's runs
    outside the sandbox): its venv's pyvenv.cfg, else its file name (python3.12); None when unknown.
    None for `python` is the grader's own interpreter."""
    if python is None:
        return ".".join(map(str, sys.version_info[:3]))
    cfg = Path(os.path.dirname(os.path.dirname(python)), "pyvenv.cfg")
    if cfg.is_file():
        for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info") and re.fullmatch(r"\d+(\.\d+)+", value.strip()):
                return value.strip()
    found = re.fullmatch(r"python(\d+\.\d+)", os.path.basename(os.path.realpath(python)))
    return found.group(1) if found else None


def roots(python: str) -> list[str]:
    """Folders the interpreter needs: its venv (if any) and the Python the venv was made from."""
    found = []
    env = os.path.dirname(os.path.dirname(python))
    if os.path.isfile(os.path.join(env, "pyvenv.cfg")):
        found.append(os.path.realpath(env))
        for line in Path(env, "pyvenv.cfg").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                found.append(os.path.realpath(os.path.dirname(value.strip())))
    found.append(os.path.dirname(os.path.dirname(os.path.realpath(python))))
    unique = []
    for root in found:
        if root != "/" and os.path.isdir(root) and root not in unique:
            unique.append(root)
    return unique


def expose_steps(python: str, steps: list[list[str]], hides: list[str], stage: Path) -> list[list[str]]:
    """The mount plan with the interpreter's folders bound back where it covers them.

    Each folder is staged in three binds: first into the sandbox's stage (while still visible),
    then under the new /root (which outlives the tmpfs on /tmp), last at its own path."""
    covered = [*hides, *COVERED]
    needed = [r for r in roots(python) if any((r + "/").startswith(c.rstrip("/") + "/") for c in covered)]
    if not needed:
        return steps
    at = next(i for i, s in enumerate(steps) if s[0] == "bind" and s[2] == "/root/.sandbox") + 1
    first, middle, last = [], [], []
    for n, root in enumerate(needed):
        staged = stage / f"python-{n}"
        staged.mkdir(exist_ok=True)
        first.append(["bind", root, str(staged), "ro"])
        middle += [["mkdir", f"/root/.python/{n}"], ["bind", str(staged), f"/root/.python/{n}", "ro"]]
        last += [["mkdir", root], ["bind", f"/root/.python/{n}", root, "ro"]]
    return first + steps[:at] + middle + steps[at:] + last
