"""dist/handout.zip: what a student downloads. Built from the kit, scanned, then written."""

from __future__ import annotations

from pathlib import Path

from ..errors import LeakError
from .contents import HANDOUT_INCLUDE, PRIVATE, select
from .leaks import scan
from .rubric_filter import visible_only
from .zipout import write_zip

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
    rubric = kit / "grader/rubric.toml"
    if rubric.exists():
        files["grader/rubric.toml"] = visible_only(rubric.read_text(encoding="utf-8")).encode("utf-8")
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
