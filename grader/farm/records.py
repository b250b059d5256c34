"""One student's outcome on disk: committed atomically, read back defensively.

A student's folder `students/<id>` is a symbolic link to one complete version of it
(`students/.versions/<id>.<token>/`: record.json, results.json, grader.log). A new grading is
written into a new version, then the link is replaced by an atomic rename. A run stopped at any
instant, by any signal, leaves each student with the complete previous version or the complete new
one, never a mix.

A record keeps the raw per-test records its grade is built from (`suite`, grader/suite/outcome.py)
and the grade built from them (`tests`, results.json-shaped), each with the fingerprints of the kit
and the submission that produced it (grader/farm/fingerprint.py): a partial regrade replaces the
raw records of the tests it grades and the grade is built again over them all
(grader/grade_builder.py), and a test graded by another kit or another submission than today's is
stale. A record of an older format cannot be rebuilt so: it reads as missing, and is regraded whole
(`older_format` says why).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

from ..atomic import MODE
from ..atomic import write_json_atomic as write_json_atomic  # batch.py writes its manifest with it

FORMAT = 3  # 3: the raw records (`suite`) and `full_run` are kept
GRADED = "graded"
UNREADABLE = "unreadable_submission"
TIMED_OUT = "timed_out"
INTERRUPTED = "interrupted"
GRADER_ERROR = "grader_error"
STATUSES = (GRADED, UNREADABLE, TIMED_OUT, INTERRUPTED, GRADER_ERROR)
VERSIONS = ".versions"


def student_dir(out: Path, student: str) -> Path:
    return out / "students" / student


def record_path(out: Path, student: str) -> Path:
    return student_dir(out, student) / "record.json"


def read_record(path: Path) -> dict | None:
    """The record at `path`, or None if it is missing or not a record of this format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or data.get("status") not in STATUSES
        or "student" not in data
        or not isinstance(data.get("tests"), list)
    ):
        return None
    return data


def older_format(path: Path) -> int | None:
    """The format of the record at `path` when it is a record of an older format than this farm's
    (it is regraded whole: its grade cannot be rebuilt from raw records it lacks); else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    fmt = data.get("format") if isinstance(data, dict) else None
    return fmt if isinstance(fmt, int) and not isinstance(fmt, bool) and fmt < FORMAT else None


def older_records(out: Path) -> dict[str, int]:
    """{student: format} of the records under `out` of an older format than this farm's."""
    found = {}
    root = out / "students"
    if root.is_dir():
        for d in sorted(root.iterdir()):
            fmt = None if d.name.startswith(".") else older_format(d / "record.json")
            if fmt is not None:
                found[d.name] = fmt
    return found


def read_records(out: Path) -> dict[str, dict]:
    """All complete records under `out`, by student id."""
    found = {}
    root = out / "students"
    if root.is_dir():
        for d in sorted(root.iterdir()):
            if d.name.startswith("."):
                continue
            rec = read_record(d / "record.json")
            if rec is not None:
                found[rec["student"]] = rec
    return found


def commit(out: Path, student: str, files: dict[str, str]) -> None:
    """Make `files` (name -> text; record.json among them) the student's folder, atomically."""
    root = out / "students"
    versions = root / VERSIONS
    versions.mkdir(parents=True, exist_ok=True)
    version = versions / f"{student}.{secrets.token_hex(6)}"
    version.mkdir()
    for name, text in files.items():
        path = version / name
        with path.open("w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(path, MODE)
    link = root / student
    old = os.readlink(link) if link.is_symlink() else None
    if link.exists() and not link.is_symlink():  # an output written before versions existed
        shutil.rmtree(link)
    tmp = root / f".{student}.{secrets.token_hex(6)}.link"
    os.symlink(os.path.join(VERSIONS, version.name), tmp)
    os.replace(tmp, link)  # the commit point
    _fsync_dir(root)
    if old:
        shutil.rmtree(root / old, ignore_errors=True)


def collect_garbage(out: Path) -> None:
    """Remove versions and links no student points to (left by a run killed mid-commit)."""
    root = out / "students"
    versions = root / VERSIONS
    if not versions.is_dir():
        return
    live = {os.path.basename(os.readlink(p)) for p in root.iterdir() if p.is_symlink()}
    for v in versions.iterdir():
        if v.name not in live:
            shutil.rmtree(v, ignore_errors=True)
    for p in root.glob(".*.link"):
        p.unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def dumps(data: object) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def total(tests: list[dict]) -> float:
    return float(sum(float(t.get("score", 0.0)) for t in tests))
