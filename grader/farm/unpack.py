"""A student's upload, as the farm and Gradescope receive it: fingerprinted, then unpacked.

Finding the package is `grader.submission.find_package`, the same rule `make grade` uses: `bpe/` at
the top or some folders down, or the package's own files loose in a folder. Zips go through the
grader's guarded extraction (no absolute or `..` paths, no links, capped size and file count).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import submission
from ..sandbox import SubmissionError


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


def prepare(submission_path: Path, scratch: Path) -> Path:
    """A directory containing `bpe/` for this submission (extracting a zip into `scratch`)."""
    name = submission_path.name
    try:
        if submission_path.is_file():
            if submission_path.suffix.lower() != ".zip":
                raise Unreadable(f"{name} is neither a folder nor a .zip file")
            root = scratch / "unzipped"
            root.mkdir(parents=True)
            submission.extract_zip(submission_path, root)
            return submission.find_package(root, scratch, name)
        if submission_path.is_dir():
            return submission.find_package(submission_path, scratch, name)
    except SubmissionError as e:
        raise Unreadable(str(e).replace(str(submission_path), name)) from None
    raise Unreadable(f"{name} is neither a folder nor a .zip file")
