"""dist/handout.zip: what a student downloads. Built from the kit, scanned, then written.

The starter comes from git's HEAD, never from an edited working tree, and must still be all stubs
(grader/release/starter_check.py)."""

from __future__ import annotations

from pathlib import Path

from ..calibration import public_test_times
from ..errors import LeakError
from .contents import HANDOUT_INCLUDE, PRIVATE, select
from .leaks import scan
from .rubric_filter import visible_only
from .starter_check import StarterError, check, committed
from .zipout import write_zip

__all__ = ["TOP", "LeakError", "StarterError", "build", "handout_files"]

TOP = "bpe-assignment"
TEMPLATES = Path(__file__).parent / "templates"
STUDENT_FILES = {
    "Makefile": "student.Makefile",
    "README.md": "student_README.md",
    ".gitignore": "student.gitignore",
}


def handout_files(kit: Path) -> dict[str, bytes]:
    """Kit-relative name -> content of everything in the handout."""
    files = select(kit, HANDOUT_INCLUDE, PRIVATE)
    starter = committed(kit)
    if starter is not None:
        files = {k: v for k, v in files.items() if not k.startswith("starter/bpe/")} | starter
        files = dict(sorted(files.items()))
    check(files)
    rubric = kit / "grader/rubric.toml"
    if rubric.exists():
        files["grader/rubric.toml"] = visible_only(rubric.read_text(encoding="utf-8")).encode("utf-8")
    times = kit / "data/fixtures/test_times.json"
    if times.exists():
        files["data/fixtures/test_times.json"] = public_test_times(times.read_text(encoding="utf-8")).encode()
    for name, template in STUDENT_FILES.items():
        files[name] = (TEMPLATES / template).read_bytes()
    return files


def build(kit: Path, dest: Path) -> dict[str, bytes]:
    files = handout_files(kit)
    problems = scan(kit, files)
    if problems:
        raise LeakError(f"refusing to write {dest}: " + "; ".join(problems[:10]))
    write_zip(dest, {f"{TOP}/{k}": v for k, v in files.items()})
    return files
