"""Files written whole or not at all: a reader (a CI uploader, a browser, a second run) sees the old
file or the new one, never half of one. The farm's records, the staff's files and Gradescope's
results.json are all written this way."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


MODE = 0o666 & ~_umask()  # what open() would give: mkstemp's 0600 would hide results from CI uploaders


def temp_beside(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.fchmod(fd, MODE)
    return fd, tmp


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON to `path` so readers see the old file or the new one, never half of one."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` as it is (no newline translation), old file or new, never half."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
