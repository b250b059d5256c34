"""Pytest plugin for the graded suite (provisional, in-process only).

The grader-core work replaces the in-process fixture with the sandboxed proxy; the graded tests only
ever see the `bpe` fixture, so they do not change.
"""
from __future__ import annotations

import importlib
import sys

import pytest


def pytest_addoption(parser):
    parser.addoption("--submission", default="solution", help="directory that contains the bpe package")


@pytest.fixture(scope="session")
def bpe(request):
    path = str(request.config.getoption("--submission"))
    sys.path.insert(0, path)
    try:
        return importlib.import_module("bpe")
    finally:
        sys.path.remove(path)
