"""Shared by the kit's tests: where the kit's parts are, as fixtures.

Test modules take the kit's paths from `grader.paths` (a conftest is pytest's to load, not a module
to import) and shared helpers from the modules beside it (sandboxed.py, handout_support.py,
instructor_fakes.py, report_dom.py...), never from each other.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from grader import calibration, measured
from grader.paths import KIT_ROOT, SOLUTION

__all__ = ["CATALOGUE", "KIT", "SOLUTION", "STARTER", "kit"]

KIT = KIT_ROOT
CATALOGUE = KIT / "tests" / "submissions"
STARTER = KIT / "starter"


@pytest.fixture(scope="session")
def kit() -> Path:
    """The kit's root folder (the checkout), whatever the current directory."""
    return KIT


def pytest_configure(config):
    """One measurement of this machine for the whole test run (grader/measured.py), as a farm run
    has: every grading the kit's tests start reads the same yardstick, reference times and speed
    texts instead of measuring afresh. Made by the first process (xdist's workers inherit it), and
    measured there, before any test runs beside it (calibration.measure_first)."""
    if measured.run_file() is None:
        config._bpe_kit_measured = tempfile.mkdtemp(prefix="bpe-kit-measured-")
        os.environ[measured.ENV] = str(Path(config._bpe_kit_measured) / "machine.json")
        calibration.measure_first(Path(config._bpe_kit_measured))


def pytest_unconfigure(config):
    made = getattr(config, "_bpe_kit_measured", None)
    if made:
        os.environ.pop(measured.ENV, None)
        shutil.rmtree(made, ignore_errors=True)
