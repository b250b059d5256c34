"""Find a CS336 repository (a checkout or a zip of one) and stage it behind the `bpe` shim.

The staged folder holds `bpe/__init__.py` (shim.py) and `bpe/_repo/`: the repository's Python files
(its own packages, `tests/adapters.py`), so the sandbox copies and seals it like any `bpe` package.
Data, checkpoints and virtual environments stay behind; `--python` brings the interpreter.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import SubmissionError
from ..intake import LITTER, MAX_DEPTH, extract_zip
from ..sandbox.box import SUBMISSION_MAX_BYTES, SUBMISSION_MAX_FILES

SHIM = Path(__file__).resolve().parent / "shim.py"
ADAPTERS = Path("tests") / "adapters.py"
SKIPPED = (*LITTER, "data", "wandb", "checkpoints", ".pytest_cache", ".mypy_cache", ".ruff_cache")
SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Staged:
    parent: Path  # holds bpe/ (the shim and the repository), what the sandbox copies
    repo: Path  # the repository as found (a zip's is a temporary copy)


def find_repo(root: Path, shown: str) -> Path:
    """The shallowest folder holding `tests/adapters.py`."""
    level = [root]
    for _ in range(MAX_DEPTH + 1):
        found = [d for d in level if (d / ADAPTERS).is_file()]
        if len(found) > 1:
            rel = ", ".join(str(d.relative_to(root)) or "." for d in found)
            raise SubmissionError(f"{shown}: more than one CS336 repository at the same level ({rel})")
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
    raise SubmissionError(f"{shown}: no tests/adapters.py found: this is not a CS336 assignment-1 repository")


def copy_sources(repo: Path, dest: Path) -> None:
    """The repository's Python files, as regular files (no links), in the same layout; capped
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
                    f"{repo}: its Python files are more than {SUBMISSION_MAX_BYTES // 2**20} MiB "
                    f"or {SUBMISSION_MAX_FILES} files"
                )
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / rel)


@contextlib.contextmanager
def opened(path: Path) -> Iterator[Staged]:
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"{path}: no such file or folder")
    if not path.is_dir() and not zipfile.is_zipfile(path):
        raise SubmissionError(f"{path}: not a folder and not a zip file")
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
        shutil.copyfile(SHIM, package / "__init__.py")
        yield Staged(package.parent, repo)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
