"""One student's outcome on disk: written atomically, read back defensively.

A record is the commit point of grading one student: `students/<id>/record.json` appears (via an
atomic rename) only once everything else for that student is on disk, so a run killed at any moment
leaves either a complete record or none.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

GRADED = "graded"
GRADER_ERROR = "grader_error"
UNREADABLE = "unreadable_submission"
STATUSES = (GRADED, GRADER_ERROR, UNREADABLE)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would give: mkstemp's 0600 would hide results from CI uploaders


def _temp_beside(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.fchmod(fd, _MODE)
    return fd, tmp


def write_json_atomic(path: Path, data) -> None:
    """Write JSON to `path` so readers see the old file or the new one, never half of one."""
    fd, tmp = _temp_beside(path)
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
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def student_dir(out: Path, student: str) -> Path:
    return out / "students" / student


def record_path(out: Path, student: str) -> Path:
    return student_dir(out, student) / "record.json"


def read_record(path: Path) -> dict | None:
    """The record at `path`, or None if it is missing or not a record we wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("status") not in STATUSES or "student" not in data:
        return None
    return data


def read_records(out: Path) -> dict[str, dict]:
    """All complete records under `out`, by student id."""
    found = {}
    root = out / "students"
    if root.is_dir():
        for d in sorted(root.iterdir()):
            rec = read_record(d / "record.json")
            if rec is not None:
                found[rec["student"]] = rec
    return found


def make_record(
    student: str,
    source: str,
    fingerprint: str,
    status: str,
    *,
    results: dict | None = None,
    config: str = "",
    message: str = "",
    details: str = "",
    seconds: float = 0.0,
    started: str = "",
) -> dict:
    score = max_score = None
    if status == GRADED and results is not None:
        score = float(results.get("score", 0.0))
        max_score = sum(float(t.get("max_score", 0.0)) for t in results.get("tests", []))
    return {
        "student": student,
        "source": source,
        "fingerprint": fingerprint,
        "config": config,
        "status": status,
        "score": score,
        "max_score": max_score,
        "message": message,
        "details": details,
        "results": results,
        # Timings are kept apart so that outputs can be compared with them stripped.
        "timing": {"started": started, "seconds": round(seconds, 3)},
    }
