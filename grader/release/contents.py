"""Which files of the kit go where. The handout gets only what a student may see.

Instructor-only, never in the handout: the reference solution; hidden tests and fixtures; the
release, farm, course staff and Gradescope tooling; and everything in grader/oracles/ (`ORACLES`, one glob): the
trusted oracles (a slow but working CharBPE, BPE trainer and encoder, plus the classic mistakes as
trainer knobs) and the fixture maker (it regenerates fixtures, hidden ones included). Those are
working answers to Parts 1-3, so they stay there: the public graded tests import only
grader/checks/ and read what the oracles computed from data/fixtures/public/ instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from assignment.build import LANGUAGES

from ..paths import KIT_ROOT

HANDOUT_INCLUDE = [
    "assignment/**",
    "starter/bpe/**",
    "tests/graded/**",
    "data/__init__.py",
    "data/corpus.py",
    "data/fixtures/**",
    "grader/**",
    "pyproject.toml",
    "requirements/grading.txt",
]
# The handout's translations (assignment/build.py's folders: assignment/zh/ ...): the English
# handout carries none of them; one in another language carries its own (grader/release/handout.py).
TRANSLATIONS = {
    lang: f"{folder.relative_to(KIT_ROOT).as_posix()}/**"
    for lang, folder in LANGUAGES.items()
    if lang != "en"
}
ORACLES = "grader/oracles/**"
PRIVATE = [
    "solution/**",
    ORACLES,
    "tests/graded/test_hidden_*",
    "tests/graded/**/test_hidden_*",
    "data/fixtures/hidden/**",
    "data/fixtures/test_times.json",  # names the hidden tests: the handout gets its public part
    "grader/release/**",
    "grader/farm/**",
    "grader/farm_cli.py",  # the farm's command line, above the farm and the staff
    "grader/gradescope.py",
    "grader/staff/**",
    "grader/rubric.toml",  # replaced by its visible part
    "grader/rubric_cs336.toml",  # the cs336 contract (README): it names hidden tests, and its shim
    "grader/cs336/**",  # defines the graded names; CS336 repositories are graded with the whole kit
]
# Private files the handout carries a public part of, written by the build (handout.handout_files);
# the leak scan still reads them for hidden names.
PUBLIC_PARTS = ("grader/rubric.toml", "data/fixtures/test_times.json")
# The Gradescope bundle is never seen by students: it holds the whole grader, hidden tests included.
BUNDLE_INCLUDE = [
    "grader/**",
    "tests/graded/**",
    "data/__init__.py",
    "data/corpus.py",
    "data/fixtures/**",
    "pyproject.toml",
]
BUNDLE_EXCLUDE: list[str] = []
JUNK = ["**/__pycache__/**", "**/*.pyc", "**/.DS_Store", "**/.pytest_cache/**", "**/.hypothesis/**"]


def _glob_re(pattern: str) -> re.Pattern:
    """`**` spans any number of folders (even none); `*` and `?` stay inside one name."""
    out, parts = "", pattern.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out += ".*" if last else "(?:[^/]+/)*"
        else:
            out += "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
            out += "" if last else "/"
    return re.compile(out + r"\Z")


def _match(rel: str, patterns: list[str]) -> bool:
    return any(_glob_re(p).match(rel) for p in patterns)


def select(kit: Path, include: list[str], exclude: list[str]) -> dict[str, bytes]:
    """Kit-relative path -> bytes for every regular file matching `include` and not `exclude`."""
    files = {}
    for p in sorted(kit.rglob("*")):
        if p.is_symlink() or not p.is_file():
            continue
        rel = p.relative_to(kit).as_posix()
        if rel.startswith((".git/", ".venv/")) or _match(rel, JUNK):
            continue
        if _match(rel, include) and not _match(rel, exclude):
            files[rel] = p.read_bytes()
    return files


def is_private(rel: str) -> bool:
    return _match(rel, PRIVATE)
