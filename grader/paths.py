"""Where the kit's parts are, found from this file: the grader works from any current directory."""

from __future__ import annotations

from pathlib import Path

GRADER_DIR = Path(__file__).resolve().parent
KIT_ROOT = GRADER_DIR.parent
DEFAULT_RUBRIC = GRADER_DIR / "rubric.toml"
DEFAULT_TESTS_DIR = KIT_ROOT / "tests" / "graded"
FIXTURES = KIT_ROOT / "data" / "fixtures"
SOLUTION = KIT_ROOT / "solution"
