"""`--python`: the sandboxed worker runs under the student's interpreter (e.g. their repo's venv).

The worker still starts under the grader's interpreter, which confines it (mounts, rlimits, an
unprivileged uid) and only then exec's the student's one (worker.become): nothing of theirs ever runs before
the confinement. Only the interpreter and its site-packages are theirs; the sandbox, the wire and
the limits are the same. In namespace mode the dirs the interpreter needs (the venv, its base
Python) may sit under a folder the sandbox covers (/root, /tmp, the kit...): they are bound back,
read-only, at their own paths.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import PythonError
from ..i18n import _

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

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


def pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def found() -> list[tuple[str, str]]:
    """(path, full version) of the interpreters on this machine whose full version is known without
    running them: pyenv's (its versions/ folder names them), those in PATH that lead to one or sit
    in a venv, and the grader's own. An X.Y-only name (/usr/bin/python3.11) is left out: it says
    nothing of its patch version, which `==3.12` is about."""
    seen: dict[str, tuple[str, str]] = {}

    def add(path: str, ver: str | None) -> None:
        if ver and re.fullmatch(r"\d+\.\d+\.\d+", ver) and os.path.realpath(path) not in seen:
            seen[os.path.realpath(path)] = (path, ver)

    own = sys.executable
    add(own, ".".join(map(str, sys.version_info[:3])))
    for folder in sorted(glob.glob(str(pyenv_root() / "versions" / "*"))):
        add(os.path.join(folder, "bin", "python"), os.path.basename(folder))
    versions = str(pyenv_root() / "versions") + os.sep
    for name in ("python3", *(f"python3.{minor}" for minor in range(6, 20))):
        path = shutil.which(name)
        if not path:
            continue
        real = os.path.realpath(path)
        if real.startswith(versions):
            add(path, real[len(versions) :].split(os.sep)[0])
        elif os.path.isfile(Path(os.path.dirname(os.path.dirname(path)), "pyvenv.cfg")):
            add(path, version(path))
    return sorted(seen.values(), key=lambda pv: tuple(int(x) for x in pv[1].split(".")))


def matching(spec: SpecifierSet) -> list[str]:
    """The interpreters `found` here whose version `spec` (a packaging SpecifierSet) contains."""
    return [path for path, ver in found() if spec.contains(ver, prereleases=True)]


def exact_pins(spec: SpecifierSet) -> list[str]:
    """The `==X.Y` specifiers of `spec` that pin a version shorter than X.Y.Z: PEP 440 pads them
    with zeros, so `==3.12` is 3.12.0 alone (`==3.12.*` is any 3.12)."""
    return [
        str(s)
        for s in spec
        if s.operator == "==" and not s.version.endswith(".*") and s.version.count(".") < 2
    ]


@dataclass(frozen=True)
class Mismatch:
    """An interpreter outside a repository's `requires-python`, graded under anyway
    (`--ignore-requires-python`): the report records it."""

    requires: str
    version: str
    python: str

    def data(self) -> dict:
        return {"requires_python": self.requires, "version": self.version, "python": self.python}

    def said(self) -> str:
        return _(
            "Graded with --ignore-requires-python: Python {version} ({python}), which the "
            "repository's requires-python = {spec} excludes."
        ).format(version=self.version, python=self.python, spec=repr(self.requires))

    def refusal(self, repo: Path, spec: SpecifierSet) -> str:
        """Why the interpreter is refused, what `requires-python` means, what would match here."""
        said = _(
            "{repo}: its pyproject.toml has requires-python = {spec}, but it would be graded with "
            "Python {version} ({python})."
        ).format(repo=repo, spec=repr(self.requires), version=self.version, python=self.python)
        pins = exact_pins(spec)
        if pins:
            said += " " + _(
                "{pin} means exactly {padded} (PEP 440 pads the missing parts with zeros); "
                "{wildcard} would mean any {short}."
            ).format(
                pin=pins[0],
                padded=pins[0][2:] + ".0",
                wildcard=pins[0] + ".*",
                short=pins[0][2:],
            )
        here = matching(spec)
        if here:
            said += " " + _("Interpreters here that match: {paths}.").format(paths=", ".join(here))
        else:
            said += " " + _("No interpreter found here (PATH, pyenv) matches it.")
        return (
            said
            + " "
            + _(
                "Give one with --python PATH, or grade under this one anyway with --ignore-requires-python "
                "(the report records it)."
            )
        )


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
