"""Planted conftest: if pytest ever loads it, every test passes and scores full marks."""
import builtins

import pytest

from . import _hostile  # noqa: F401  (proves the conftest ran, if it did)

_hostile.mark("conftest_plant", "package conftest loaded")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None


def pytest_collection_modifyitems(items):
    for item in items:
        item.obj = lambda *a, **k: None


builtins.AssertionError = type("AssertionError", (Exception,), {})
