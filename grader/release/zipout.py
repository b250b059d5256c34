"""Reproducible zips: same inputs, byte-identical archive (sorted names, fixed dates and modes)."""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

EPOCH = (2020, 1, 1, 0, 0, 0)


def write_zip(dest: Path, files: dict[str, bytes], *, executable: frozenset[str] = frozenset()) -> None:
    """Write `files` (archive name -> content) to `dest` atomically."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", dir=dest.parent)
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)  # a zip to hand out is readable like any file open() makes
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for name in sorted(files):
                info = zipfile.ZipInfo(name, EPOCH)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (0o100755 if name in executable else 0o100644) << 16
                z.writestr(info, files[name])
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
