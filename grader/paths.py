"""Where the kit's parts are, found from this file: the grader works from any current directory.

Every path of the kit that code needs comes from here, so a file moved is one line changed. (The
CS336 shim is the exception: it runs in a student's repository, alone, and finds itself.)
"""

from __future__ import annotations

from pathlib import Path

GRADER_DIR = Path(__file__).resolve().parent
KIT_ROOT = GRADER_DIR.parent
README = KIT_ROOT / "README.md"
ASSIGNMENT_DIR = KIT_ROOT / "assignment"  # the handout
DEFAULT_RUBRIC = GRADER_DIR / "rubric.toml"
DEFAULT_TESTS_DIR = KIT_ROOT / "tests" / "graded"
FIXTURES = KIT_ROOT / "data" / "fixtures"
CALIBRATION_FILE = FIXTURES / "calibration.json"  # the reference/yardstick ratios (grader/calibration.py)
TEST_TIMES_FILE = FIXTURES / "test_times.json"  # the reference's CPU seconds per graded test
SOLUTION = KIT_ROOT / "solution"
LOCALE_DIR = GRADER_DIR / "locale"
SANDBOX_DIR = GRADER_DIR / "sandbox"  # the worker's runtime is copied from here into each sandbox
CS336_SHIM = GRADER_DIR / "cs336" / "shim.py"
# Each tool's own templates
RELEASE_TEMPLATES = GRADER_DIR / "release" / "templates"
FARM_TEMPLATES = GRADER_DIR / "farm" / "templates"
STAFF_TEMPLATES = GRADER_DIR / "staff" / "templates"
