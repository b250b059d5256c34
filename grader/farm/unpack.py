"""A student's upload, as the farm receives it: fingerprinted, then unpacked.

Unpacking is `grader.intake.unpack`, the one intake `make grade` and Gradescope use too; an
unusable upload raises `grader.errors.SubmissionError`, naming the upload as the student named it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import intake


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
    """A directory containing `bpe/` for this submission (unpacked into `scratch` if need be)."""
    return intake.unpack(submission_path, scratch, shown=submission_path.name)
