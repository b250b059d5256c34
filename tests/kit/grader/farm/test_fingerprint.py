"""The kit fingerprint moves with what decides a grade, and only with that: a staff-tools edit (late
policy, overrides, pages) must not mark every record of a class stale."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.farm import fingerprint
from grader.paths import KIT_ROOT as KIT


@pytest.fixture
def kit_copy(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "kit"
    for rel in ("grader", "data/fixtures", "solution/bpe", "tests/graded"):
        shutil.copytree(KIT / rel, root / rel, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(KIT / "pyproject.toml", root / "pyproject.toml")
    monkeypatch.setattr(fingerprint, "KIT_ROOT", root)
    return root


def digest(root: Path) -> str:
    return fingerprint.kit_fingerprint(root / "tests" / "graded", root / "grader" / "rubric.toml")


@pytest.mark.parametrize(
    "rel", ["grader/farm/report.py", "grader/release/__init__.py", "grader/staff/late_policy.py"]
)
def test_tools_that_never_change_a_score_leave_the_fingerprint_alone(kit_copy, rel):
    before = digest(kit_copy)
    with (kit_copy / rel).open("a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    assert digest(kit_copy) == before


@pytest.mark.parametrize(
    "rel",
    [
        "grader/checks/messages.py",
        "grader/sandbox/worker.py",
        "tests/graded/test_part1.py",
        "solution/bpe/training.py",
    ],
)
def test_what_decides_a_grade_moves_the_fingerprint(kit_copy, rel):
    before = digest(kit_copy)
    with (kit_copy / rel).open("a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    assert digest(kit_copy) != before


def test_a_new_fixture_moves_it(kit_copy):
    before = digest(kit_copy)
    (kit_copy / "data" / "fixtures" / "extra.json").write_text("{}", encoding="utf-8")
    assert digest(kit_copy) != before
