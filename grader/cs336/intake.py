"""Find a CS336 repository (a checkout or a zip of one) and stage it behind the `bpe` shim.

The staged folder holds `bpe/__init__.py` (shim.py) and `bpe/_repo/`: the repository's Python files
(its own packages, `tests/adapters.py`), so the sandbox copies and seals it like any `bpe` package.
Data, checkpoints and virtual environments stay behind; `--python` brings the interpreter.

The repository is graded as it is, not pip-installed: `bpe/_repo/` also gets a minimal dist-info
for the project its pyproject.toml names, so `importlib.metadata.version("cs336_basics")` (which
CS336's skeleton calls on import) works under any interpreter, one course venv for a whole class.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from ..errors import PythonError, SubmissionError
from ..i18n import _
from ..intake import LITTER, MAX_DEPTH, extract_zip
from ..paths import CS336_SHIM as SHIM
from ..sandbox import student_python
from ..sandbox.box import SUBMISSION_MAX_BYTES, SUBMISSION_MAX_FILES

ADAPTERS = Path("tests") / "adapters.py"
SKIPPED = (*LITTER, "data", "wandb", "checkpoints", ".pytest_cache", ".mypy_cache", ".ruff_cache")
SUFFIXES = (
    ".py",
    ".pyi",
    ".so",
    ".pyd",
)  # extension modules too: they import under the Python they were built for


@dataclass(frozen=True)
class Staged:
    parent: Path  # holds bpe/ (the shim and the repository), what the sandbox copies
    repo: Path  # the repository as found (a zip's is a temporary copy)


def find_repo(root: Path, shown: str) -> Path:
    """The shallowest folder holding `tests/adapters.py`."""
    level = [root]
    for _depth in range(MAX_DEPTH + 1):
        found = [d for d in level if (d / ADAPTERS).is_file()]
        if len(found) > 1:
            rel = ", ".join(str(d.relative_to(root)) or "." for d in found)
            raise SubmissionError(
                _("{submission}: more than one CS336 repository at the same level ({folders})").format(
                    submission=shown, folders=rel
                )
            )
        if found:
            return found[0]
        nxt = []
        for d in level:
            try:
                nxt += [
                    c
                    for c in sorted(d.iterdir())
                    if c.is_dir() and not c.is_symlink() and c.name not in SKIPPED
                ]
            except OSError:
                continue
        level = nxt
    raise SubmissionError(
        _("{submission}: no tests/adapters.py found: this is not a CS336 assignment-1 repository").format(
            submission=shown
        )
    )


def copy_sources(repo: Path, dest: Path) -> None:
    """The repository's Python files and compiled extension modules, as regular files (no links),
    in the same layout; capped
    like any submission (the sandbox checks the same caps again on what it copies)."""
    total = count = 0
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo)
        if any(part in SKIPPED for part in rel.parts[:-1]) or path.is_symlink():
            continue
        if path.is_file() and path.suffix in SUFFIXES:
            total, count = total + path.stat().st_size, count + 1
            if total > SUBMISSION_MAX_BYTES or count > SUBMISSION_MAX_FILES:
                raise SubmissionError(
                    _("{repo}: its Python files are more than {mib} MiB or {files} files").format(
                        repo=repo, mib=SUBMISSION_MAX_BYTES // 2**20, files=SUBMISSION_MAX_FILES
                    )
                )
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / rel)


def project(repo: Path) -> dict:
    """The [project] table of the repository's pyproject.toml; {} when it has none it can read
    (a repository is graded as it is: its packaging is not graded)."""
    try:
        data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    table = data.get("project")
    return table if isinstance(table, dict) else {}


def write_dist_info(repo: Path, dest: Path) -> None:
    """A minimal `<name>-<version>.dist-info` in dest (on sys.path in the sandbox), as pip would
    leave for the project, so importlib.metadata finds it without an install."""
    name, version = project(repo).get("name"), project(repo).get("version", "0")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        return
    version = str(version) if re.fullmatch(r"[A-Za-z0-9.+!]+", str(version)) else "0"
    folder = dest / f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    text = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    (folder / "METADATA").write_text(text, encoding="utf-8")


def check_python(repo: Path, python: str | None, ignore: bool = False) -> student_python.Mismatch | None:
    """Refuse an interpreter outside the repository's `requires-python` (a repository written for
    3.12 fails to import on 3.11 with a SyntaxError that names no version), saying what the
    specifier means and which interpreters here match; with `ignore`, the mismatch is returned to
    be recorded instead. None when it matches (or nothing says which Python it needs)."""
    spec = project(repo).get("requires-python")
    version = student_python.version(python)
    if not isinstance(spec, str) or version is None:
        return None
    try:
        wanted = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    if wanted.contains(version, prereleases=True):
        return None
    mismatch = student_python.Mismatch(spec, version, python or sys.executable)
    if ignore:
        return mismatch
    raise PythonError(mismatch.refusal(repo, wanted))


@contextlib.contextmanager
def opened(path: Path) -> Iterator[Staged]:
    path = Path(path)
    if not path.exists():
        raise SubmissionError(_("{submission}: no such file or folder").format(submission=path))
    if not path.is_dir() and not zipfile.is_zipfile(path):
        raise SubmissionError(_("{submission}: not a folder and not a zip file").format(submission=path))
    scratch = Path(tempfile.mkdtemp(prefix="bpe-kit-cs336-"))
    try:
        root = path.resolve()
        if not path.is_dir():
            root = scratch / "unzipped"
            root.mkdir()
            extract_zip(path, root)
        repo = find_repo(root, str(path))
        package = scratch / "staged" / "bpe"
        copy_sources(repo, package / "_repo")
        write_dist_info(repo, package / "_repo")
        shutil.copyfile(SHIM, package / "__init__.py")
        yield Staged(package.parent, repo)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
