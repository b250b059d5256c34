"""Find the `bpe` package of a submission: a folder holding bpe/, or a zip of one.

Zips are extracted defensively: no absolute paths, no `..`, no links, capped in size and count.
"""
from __future__ import annotations

import contextlib
import shutil
import stat
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Iterator

from .sandbox import SubmissionError

ZIP_MAX_BYTES = 50 * 1024 * 1024
ZIP_MAX_MEMBERS = 5000


def _package_parent(root: Path, shown: str) -> Path:
    if (root / "bpe").is_dir():
        return root
    inner = [p for p in root.iterdir() if p.is_dir() and p.name != "__MACOSX" and (p / "bpe").is_dir()]
    if len(inner) == 1:
        return inner[0]
    if root.name == "bpe" and (root / "__init__.py").is_file():
        raise SubmissionError(f"{shown}: give the folder that contains bpe/, not bpe/ itself")
    raise SubmissionError(f"{shown}: no bpe/ package folder in it")


LITTER = ("__MACOSX", ".git", "__pycache__", ".venv", "venv", "node_modules")


def extract_zip(archive: Path, dest: Path, *, lenient: bool = False) -> None:
    """Extract a student's zip into `dest`, refusing anything that could reach outside it.

    `lenient` (the class farm, which takes uploads as students made them) skips links and litter
    such as __MACOSX/ or .git/ instead of refusing the whole zip.
    """
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as e:
        raise SubmissionError(f"{archive}: not a readable zip file ({e})") from None
    with zf:
        members = zf.infolist()
        if len(members) > ZIP_MAX_MEMBERS:
            raise SubmissionError(f"{archive}: more than {ZIP_MAX_MEMBERS} files")
        if sum(m.file_size for m in members) > ZIP_MAX_BYTES:
            raise SubmissionError(f"{archive}: more than {ZIP_MAX_BYTES // 2**20} MiB uncompressed")
        for m in members:
            name = PurePosixPath(m.filename.replace("\\", "/"))
            if name.is_absolute() or ".." in name.parts or (m.filename[1:2] == ":"):
                raise SubmissionError(f"{archive}: unsafe path inside the zip: {m.filename!r}")
            mode = m.external_attr >> 16
            if lenient and (stat.S_ISLNK(mode) or any(p in LITTER for p in name.parts)):
                continue  # links are never followed into the grader's files
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"{archive}: links are not allowed inside the zip: {m.filename!r}")
            target = dest.joinpath(*name.parts)
            written = 0
            try:
                if m.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(m) as src, open(target, "wb") as out:
                    while chunk := src.read(1 << 16):
                        written += len(chunk)
                        if written > m.file_size or written > ZIP_MAX_BYTES:
                            raise SubmissionError(f"{archive}: {m.filename} is larger than it claims")
                        out.write(chunk)
            except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as e:
                raise SubmissionError(f"{archive}: corrupt zip ({e})") from None


@contextlib.contextmanager
def opened(path: Path) -> Iterator[Path]:
    """The folder holding `bpe/` for a submission path (extracting a zip into a temp dir)."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"{path}: no such file or folder")
    if path.is_dir():
        yield _package_parent(path.resolve(), str(path))
        return
    if not zipfile.is_zipfile(path):
        raise SubmissionError(f"{path}: not a folder and not a zip file")
    tmp = Path(tempfile.mkdtemp(prefix="bpe-kit-zip-"))
    try:
        extract_zip(path, tmp)
        yield _package_parent(tmp, str(path))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
