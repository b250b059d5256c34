"""dist/handout.zip: what a student downloads. Built from the kit, scanned, then written.

The starter comes from git's HEAD, never from an edited working tree, and must still be all stubs
(grader/release/starter_check.py). A handout in another language (`--lang zh`: dist/handout-zh.zip)
holds everything the English one does, plus its translation of the handout (assignment/zh/), and
its own student README and Makefile (grader/release/translate.py); the English zip holds no
translation."""

from __future__ import annotations

from pathlib import Path

from ..calibration import public_test_times
from ..errors import LeakError
from ..paths import RELEASE_TEMPLATES as TEMPLATES
from .contents import HANDOUT_INCLUDE, PRIVATE, TRANSLATIONS, select
from .leaks import scan
from .rubric_filter import visible_only
from .starter_check import StarterError, check, committed
from .translate import student_files
from .zipout import write_zip

__all__ = ["LANGUAGES", "TOP", "LeakError", "StarterError", "build", "default_dest", "handout_files"]

TOP = "bpe-assignment"
LANGUAGES = ("en", *TRANSLATIONS)
STUDENT_FILES = {
    "Makefile": "student.Makefile",
    "README.md": "student_README.md",
    ".gitignore": "student.gitignore",
}


def default_dest(kit: Path, lang: str = "en") -> Path:
    return kit / ("dist/handout.zip" if lang == "en" else f"dist/handout-{lang}.zip")


def handout_files(kit: Path, lang: str = "en") -> dict[str, bytes]:
    """Kit-relative name -> content of everything in the handout in `lang`."""
    others = [folder for other, folder in TRANSLATIONS.items() if other != lang]
    files = select(kit, HANDOUT_INCLUDE, PRIVATE + others)
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
    english = {name: (TEMPLATES / template).read_bytes() for name, template in STUDENT_FILES.items()}
    return files | student_files(TEMPLATES, english, lang)


def build(kit: Path, dest: Path, lang: str = "en") -> dict[str, bytes]:
    files = handout_files(kit, lang)
    problems = scan(kit, files)
    if problems:
        raise LeakError(f"refusing to write {dest}: " + "; ".join(problems[:10]))
    write_zip(dest, {f"{TOP}/{k}": v for k, v in files.items()})
    return files
