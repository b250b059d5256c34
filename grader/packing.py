"""submission.zip: the student's `bpe` package and nothing else, as `make submission` builds it.

One implementation for both trees (the kit's Makefile and the handout's), so the zip a student
uploads is the zip the kit's own tests check.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from .errors import PackingError
from .i18n import _


def pack(parent: Path, dest: Path) -> list[str]:
    """Write `parent/bpe/**` (no caches) into `dest` as `bpe/...`; return the names written."""
    package = Path(parent) / "bpe"
    if not (package / "__init__.py").is_file():
        raise PackingError(
            _("{folder}: no bpe/ package here (expected {init})").format(
                folder=parent, init=package / "__init__.py"
            )
        )
    names = []
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(package.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                name = p.relative_to(parent).as_posix()
                z.write(p, name)
                names.append(name)
    return names
