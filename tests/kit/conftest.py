"""Shared by the kit's tests: where the kit's parts are, as fixtures.

Test modules take the kit's paths from `grader.paths` (a conftest is pytest's to load, not a module
to import) and shared helpers from the modules beside it (sandboxed.py, handout_support.py,
instructor_fakes.py, report_dom.py...), never from each other.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.paths import KIT_ROOT, SOLUTION

__all__ = ["CATALOGUE", "KIT", "SOLUTION", "STARTER", "kit"]

KIT = KIT_ROOT
CATALOGUE = KIT / "tests" / "submissions"
STARTER = KIT / "starter"


@pytest.fixture(scope="session")
def kit() -> Path:
    """The kit's root folder (the checkout), whatever the current directory."""
    return KIT
