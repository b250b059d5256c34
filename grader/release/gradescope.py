"""dist/autograder.zip: the Gradescope bundle (setup.sh, run_autograder, the whole grader).

Instructor-only: it carries the hidden tests and fixtures. The Python dependencies are pinned from
pyproject.toml at build time into requirements.txt, so Gradescope grades with exactly the versions
the kit was tested with.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ..errors import BundleError
from .contents import BUNDLE_EXCLUDE, BUNDLE_INCLUDE, select
from .zipout import write_zip

TEMPLATES = Path(__file__).parent / "templates"
ENTRY_POINTS = ("setup.sh", "run_autograder")
REQUIRED = (
    "grader/__init__.py",
    "grader/api.py",
    "grader/rubric.toml",
    "grader/gradescope.py",
    "tests/graded",
)


def requirements(kit: Path) -> str:
    try:
        deps = tomllib.loads((kit / "pyproject.toml").read_text())["project"]["dependencies"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as e:
        raise BundleError(f"{kit / 'pyproject.toml'}: cannot read project.dependencies ({e})") from None
    unpinned = [d for d in deps if "==" not in d]
    if unpinned:
        raise BundleError(f"pyproject.toml: dependencies must be pinned with == for grading: {unpinned}")
    return "\n".join(deps) + "\n"


def bundle_files(kit: Path) -> dict[str, bytes]:
    files = select(kit, BUNDLE_INCLUDE, BUNDLE_EXCLUDE)
    missing = [r for r in REQUIRED if not (kit / r).exists()]
    if missing:
        raise BundleError("the kit is missing " + ", ".join(missing))
    files["requirements.txt"] = requirements(kit).encode()
    for name in ENTRY_POINTS:
        files[name] = (TEMPLATES / name).read_bytes()
    return files


def build(kit: Path, dest: Path) -> dict[str, bytes]:
    files = bundle_files(kit)
    write_zip(dest, files, executable=frozenset(ENTRY_POINTS))
    return files
