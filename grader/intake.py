"""The one intake of a submission, for `make grade`, the farm and Gradescope alike: what one accepts,
all accept.

A submission is a folder or a zip (known by its content, not its name), with the `bpe` package at
the top or some folders down, or the package's own files loose in a folder; or a folder holding one
uploaded zip, as Gradescope gives it. Zips are extracted defensively: no absolute paths, no `..`,
no links, capped in size and count. Anything unusable raises `SubmissionError`, one line that
names the submission as the caller shows it.
"""

from __future__ import annotations

import contextlib
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from .errors import SubmissionError
from .i18n import _

ZIP_MAX_BYTES = 50 * 1024 * 1024
ZIP_MAX_MEMBERS = 5000


LITTER = ("__MACOSX", ".git", "__pycache__", ".venv", "venv", "node_modules")
MAX_DEPTH = 6  # how deep a `bpe` package may sit (a repository checkout, a course folder...)
_MARKERS = ("char_bpe.py", "tokenizer.py", "training.py", "pretokenize.py")


def extract_zip(archive: Path, dest: Path, shown: str | None = None) -> None:
    """Extract a student's zip into `dest`, refusing anything that could reach outside it.

    Links and litter (__MACOSX/, .git/, ...) are skipped: uploads come as students made them.
    Messages name the zip as `shown` (default: its path).
    """
    archive_path, archive = archive, shown or str(archive)
    try:
        zf = zipfile.ZipFile(archive_path)
    except (zipfile.BadZipFile, OSError) as e:
        raise SubmissionError(
            _("{zip}: not a readable zip file ({error})").format(zip=archive, error=e)
        ) from None
    with zf:
        members = zf.infolist()
        if len(members) > ZIP_MAX_MEMBERS:
            raise SubmissionError(
                _("{zip}: more than {count} files").format(zip=archive, count=ZIP_MAX_MEMBERS)
            )
        if sum(m.file_size for m in members) > ZIP_MAX_BYTES:
            raise SubmissionError(
                _("{zip}: more than {mib} MiB uncompressed").format(zip=archive, mib=ZIP_MAX_BYTES // 2**20)
            )
        for m in members:
            name = PurePosixPath(m.filename.replace("\\", "/"))
            if name.is_absolute() or ".." in name.parts or (m.filename[1:2] == ":"):
                raise SubmissionError(
                    _("{zip}: unsafe path inside the zip: {name}").format(zip=archive, name=repr(m.filename))
                )
            mode = m.external_attr >> 16
            if stat.S_ISLNK(mode) or any(p in LITTER for p in name.parts):
                continue  # links are never followed into the grader's files
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
                            raise SubmissionError(
                                _("{zip}: {name} is larger than it claims").format(
                                    zip=archive, name=m.filename
                                )
                            )
                        out.write(chunk)
            except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as e:
                raise SubmissionError(
                    _("{zip}: corrupt zip ({error})").format(zip=archive, error=e)
                ) from None


def _walk_dirs(root: Path):
    """Directories under root, shallowest first, ignoring litter and links."""
    level = [root]
    for depth in range(MAX_DEPTH + 1):
        nxt = []
        for d in level:
            yield depth, d
            try:
                children = sorted(d.iterdir())
            except OSError:
                continue
            nxt += [c for c in children if c.is_dir() and not c.is_symlink() and c.name not in LITTER]
        level = nxt


def _looks_like_package(d: Path) -> bool:
    return (d / "__init__.py").is_file() and any((d / m).is_file() for m in _MARKERS)


def find_package(root: Path, scratch: Path, shown: str) -> Path:
    """The folder to grade, which contains `bpe/`, however the student nested or zipped it.

    The shallowest `bpe/` package wins; failing that, the package's own files found loose in a
    folder (the student zipped the contents of bpe/) are copied into `scratch` as bpe/. The same
    rule serves `make grade`, the class farm and Gradescope, so what one accepts all accept.
    """
    named, loose = [], []
    for depth, d in _walk_dirs(root):
        if d.name == "bpe" and d != root and (d / "__init__.py").is_file():
            named.append((depth, d))
        elif _looks_like_package(d):
            loose.append((depth, d))
    for found in (named, loose):
        if not found:
            continue
        top = min(depth for depth, _ in found)
        best = [d for depth, d in found if depth == top]
        if len(best) > 1:
            rel = ", ".join(str(d.relative_to(root)) for d in best)
            raise SubmissionError(
                _(
                    "{submission}: more than one bpe package at the same level ({folders}); submit exactly one"
                ).format(submission=shown, folders=rel)
            )
        pkg = best[0]
        if found is named:
            return pkg.parent
        wrapped = scratch / "wrapped"
        shutil.copytree(pkg, wrapped / "bpe", symlinks=False, ignore=shutil.ignore_patterns(*LITTER))
        return wrapped
    raise SubmissionError(
        _(
            "{submission}: no bpe package found: submit the bpe/ folder (with __init__.py), or a zip of it"
        ).format(submission=shown)
    )


def unpack(path: Path, scratch: Path, *, shown: str | None = None) -> Path:
    """The folder holding `bpe/` for the submission at `path`, unpacked into `scratch` if need be.

    `scratch` is an empty folder the caller removes; `shown` is how messages name the submission
    (default: its path; the farm and Gradescope show the name the student gave it).
    """
    path, shown = Path(path), shown or str(path)
    if not path.exists():
        raise SubmissionError(_("{submission}: no such file or folder").format(submission=shown))
    if not path.is_dir():
        # A zip is known by its content; a damaged one still says "zip" by its name, and is told so.
        if not zipfile.is_zipfile(path) and path.suffix.lower() != ".zip":
            raise SubmissionError(_("{submission}: not a folder and not a zip file").format(submission=shown))
        root = scratch / "unzipped"
        root.mkdir(parents=True)
        extract_zip(path, root, shown)
        return find_package(root, scratch, shown)
    try:
        return find_package(path.resolve(), scratch, shown)
    except SubmissionError:
        uploaded = _single_zip(path)
        if uploaded is None:
            raise
    inner = scratch / "uploaded"
    inner.mkdir(parents=True)
    return unpack(uploaded, inner, shown=uploaded.name)


def _single_zip(folder: Path) -> Path | None:
    """The one zip file at the top of `folder`, if it holds exactly one (an upload of a zip)."""
    try:
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.is_symlink())
    except OSError:
        return None
    zips = [p for p in files if zipfile.is_zipfile(p)]
    return zips[0] if len(zips) == 1 else None


@contextlib.contextmanager
def opened(path: Path, *, shown: str | None = None) -> Iterator[Path]:
    """`unpack` into a temporary folder that is removed on exit."""
    scratch = Path(tempfile.mkdtemp(prefix="bpe-kit-zip-"))
    try:
        yield unpack(path, scratch, shown=shown)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
