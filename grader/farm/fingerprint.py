"""The kit's fingerprint: a hash of everything that decides a grade, computed once per run.

The graded tests, the rubric, the fixtures and the calibration (data/fixtures/), the grader's code
(grader/, apart from the farm, the release and the staff tools, which only file, adjust at report
time and present grades), the reference solution (the speed budgets are measured against it) and
the kit's version. A result
graded under another fingerprint than today's may no longer be the grade, so it is stale.
The submission's own fingerprint is `grader.farm.unpack.fingerprint`.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

from ..paths import KIT_ROOT

_NOT_GRADING = ("farm", "release", "staff")  # grader/ subfolders that never change a score


def _files(root: Path, *, skip: tuple[str, ...] = ()) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and not p.is_symlink()
        and "__pycache__" not in p.parts
        and not (set(p.relative_to(root).parts[:1]) & set(skip))
    )


def kit_version() -> str:
    try:
        return tomllib.loads((KIT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def kit_fingerprint(tests_dir: Path, rubric: Path, contract: str = "kit") -> str:
    """A short hex digest; equal digests mean an identical grading setup (the contract included)."""
    h = hashlib.sha256(f"bpe-kit {kit_version()}\0".encode())
    if contract != "kit":  # the kit's own digests stay what they were
        h.update(f"contract {contract}\0".encode())
    parts = [
        ("tests", Path(tests_dir), ()),
        ("rubric", Path(rubric), ()),
        ("fixtures", KIT_ROOT / "data" / "fixtures", ()),
        ("grader", KIT_ROOT / "grader", _NOT_GRADING),
        ("solution", KIT_ROOT / "solution" / "bpe", ()),
    ]
    for label, root, skip in parts:
        for p in _files(root, skip=skip):
            rel = p.name if root.is_file() else str(p.relative_to(root))
            h.update(f"{label}/{rel}\0".encode("utf-8", "surrogateescape"))
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:16]
