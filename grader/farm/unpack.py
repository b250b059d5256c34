"""Find the `bpe` package in a submission, however the student zipped or nested it.

Accepted: `bpe/` at the top; `bpe/` one or more folders down (a repo checkout, `starter/bpe`); or the
package's files themselves at some level with no `bpe/` folder around them. Zips are extracted with
the usual guards (no absolute or `..` paths, no links, capped size and file count) since they are
student-controlled input read by a trusted process.
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .. import submission
from ..sandbox import SubmissionError

MAX_DEPTH = 6
_MARKERS = ("char_bpe.py", "tokenizer.py", "training.py", "pretokenize.py")
_SKIP = submission.LITTER


class Unreadable(Exception):
    """The submission cannot be graded as submitted; the message tells the student why."""


def fingerprint(path: Path) -> str:
    """A hash of the submission as submitted: a rerun regrades a student whose files changed."""
    h = hashlib.sha256()
    if path.is_file():
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    for p in sorted(path.rglob("*")):
        if p.is_symlink() or not p.is_file() or "__pycache__" in p.parts:
            continue
        h.update(str(p.relative_to(path)).encode("utf-8", "surrogateescape") + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def extract_zip(zpath: Path, dest: Path) -> None:
    """The grader's own guarded extraction, lenient about links and litter."""
    try:
        submission.extract_zip(zpath, dest, lenient=True)
    except SubmissionError as e:
        raise Unreadable(str(e).replace(str(zpath), zpath.name)) from None


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
            nxt += [c for c in children if c.is_dir() and not c.is_symlink() and c.name not in _SKIP]
        level = nxt


def _looks_like_package(d: Path) -> bool:
    return (d / "__init__.py").is_file() and any((d / m).is_file() for m in _MARKERS)


def find_package(root: Path, scratch: Path) -> Path:
    """The directory to grade: it contains `bpe/`. May build one in `scratch` for loose files."""
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
            raise Unreadable(f"more than one bpe package at the same level ({rel}); submit exactly one")
        pkg = best[0]
        if found is named:
            return pkg.parent
        wrapped = scratch / "wrapped"
        shutil.copytree(pkg, wrapped / "bpe", symlinks=False,
                        ignore=shutil.ignore_patterns(*_SKIP))
        return wrapped
    raise Unreadable("no bpe package found: submit the bpe/ folder (with __init__.py), or a zip of it")


def prepare(submission: Path, scratch: Path) -> Path:
    """A directory containing `bpe/` for this submission (extracting a zip into `scratch`)."""
    if submission.is_file():
        if submission.suffix.lower() != ".zip":
            raise Unreadable(f"{submission.name} is neither a folder nor a .zip file")
        root = scratch / "unzipped"
        root.mkdir(parents=True)
        extract_zip(submission, root)
        return find_package(root, scratch)
    if submission.is_dir():
        return find_package(submission, scratch)
    raise Unreadable(f"{submission.name} is neither a folder nor a .zip file")
