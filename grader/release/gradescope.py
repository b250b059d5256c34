"""dist/autograder.zip: the Gradescope bundle (setup.sh, run_autograder, the whole grader).

Instructor-only: it carries the hidden tests and fixtures. It also carries the kit's grading lock
(requirements/grading.txt: every package, pinned and hashed), and setup.sh installs from it with
`pip install --require-hashes`, so Gradescope grades with exactly the files the kit was tested with.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from .. import i18n
from ..errors import BundleError
from ..i18n import N_
from ..paths import RELEASE_TEMPLATES as TEMPLATES
from .contents import BUNDLE_EXCLUDE, BUNDLE_INCLUDE, select
from .zipout import write_zip

ENTRY_POINTS = ("setup.sh", "run_autograder")
# run_autograder's own words, for when Python itself is what broke (it says them without Python):
# the bundle carries them in its language, and the language the grader is run in.
FALLBACK = N_(
    "The autograder could not grade this submission because of a problem on our side, not in your "
    "code. Your score is 0 for now. Nobody is told automatically: please let the course staff know, "
    "or submit again later. The details are in the autograder log of this submission, which only "
    "the staff can see."
)
LANGUAGE_LINE = "LANGUAGE=en "
LOCK = "requirements/grading.txt"
REQUIRED = (
    "grader/__init__.py",
    "grader/api.py",
    "grader/rubric.toml",
    "grader/gradescope.py",
    "tests/graded",
)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def grading_lock(kit: Path) -> bytes:
    """The kit's grading lock, refused if it does not hold pyproject.toml's pins (a stale lock)."""
    try:
        deps = tomllib.loads((kit / "pyproject.toml").read_text())["project"]["dependencies"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as e:
        raise BundleError(f"{kit / 'pyproject.toml'}: cannot read project.dependencies ({e})") from None
    try:
        text = (kit / LOCK).read_text()
    except OSError as e:
        raise BundleError(
            f"{kit / LOCK}: cannot read the grading lock ({e.strerror}); run `make lock`"
        ) from None
    locked = {_canonical(m[1]): m[2] for m in re.finditer(r"(?m)^([A-Za-z0-9][\w.-]*)==(\S+)", text)}
    for dep in deps:
        name, sep, version = dep.partition("==")
        if not sep:
            raise BundleError(f"pyproject.toml: dependencies must be pinned with == for grading: {dep!r}")
        if locked.get(_canonical(name.strip())) != version.strip():
            raise BundleError(f"{kit / LOCK} does not lock {dep} from pyproject.toml: run `make lock`")
    if "--hash=sha256:" not in text:
        raise BundleError(f"{kit / LOCK}: no hashes in the lock: run `make lock`")
    return text.encode()


def run_autograder(lang: str = i18n.ENGLISH) -> bytes:
    """The bundle's entry point, grading in `lang` (its fallback message in `lang` too)."""
    text = (TEMPLATES / "run_autograder").read_text(encoding="utf-8")
    if text.count(LANGUAGE_LINE) != 1 or text.count(FALLBACK) != 1:
        raise BundleError("run_autograder: its LANGUAGE line or its fallback message is not the kit's")
    said = i18n.translations(lang).gettext(FALLBACK)
    if "'" in said or '"' in said or "\\" in said:
        raise BundleError(f"run_autograder: the {lang} fallback message may not hold quotes or backslashes")
    text = text.replace(LANGUAGE_LINE, f"LANGUAGE={lang} ").replace(FALLBACK, said)
    return text.encode("utf-8")


def bundle_files(kit: Path, lang: str = i18n.ENGLISH) -> dict[str, bytes]:
    """The bundle's files; `lang` is the language it grades in (grader/i18n.py)."""
    files = select(kit, BUNDLE_INCLUDE, BUNDLE_EXCLUDE)
    missing = [r for r in REQUIRED if not (kit / r).exists()]
    if missing:
        raise BundleError("the kit is missing " + ", ".join(missing))
    files[LOCK] = grading_lock(kit)
    for name in ENTRY_POINTS:
        files[name] = (TEMPLATES / name).read_bytes()
    files["run_autograder"] = run_autograder(lang)
    return files


def build(kit: Path, dest: Path, lang: str = i18n.ENGLISH) -> dict[str, bytes]:
    files = bundle_files(kit, lang)
    write_zip(dest, files, executable=frozenset(ENTRY_POINTS))
    return files
