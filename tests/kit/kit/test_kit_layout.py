"""tests/kit mirrors the kit (ARCHITECTURE.md, "Where the kit's tests are"): a test module sits in the
folder of the room it tests, under the same path as that room (`tests/kit/grader/sandbox/` for
`grader/sandbox/`), or under the name of one of the kit's other test trees (`tests/kit/submissions/`
for `tests/submissions/`). Shared helpers and conftest.py stay in tests/kit itself, where every
folder imports them from; no test module does. Basenames are unique: the test folders are not
packages, so pytest imports each module by its basename."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from grader.paths import KIT_ROOT

TESTS = KIT_ROOT / "tests" / "kit"


def _is_test_module(path: Path) -> bool:
    """pytest's default `python_files`: test_*.py and *_test.py."""
    return path.name.startswith("test_") or path.name.endswith("_test.py")


def misplaced(tests: Path, kit: Path) -> list[str]:
    """Each module under `tests` that breaks the rule, with why."""
    wrong = []
    for path in sorted(tests.rglob("*.py")):
        folder = path.parent.relative_to(tests)
        if "__pycache__" in folder.parts:
            continue
        if folder == Path("."):
            if _is_test_module(path):
                wrong.append(
                    f"{path.name}: a test module directly in tests/kit (it goes in its room's folder)"
                )
        elif not _is_test_module(path):
            wrong.append(
                f"{folder / path.name}: a helper outside tests/kit itself, where every test imports helpers from"
            )
        elif not ((kit / folder).is_dir() or (kit / "tests" / folder).is_dir()):
            wrong.append(
                f"{folder / path.name}: neither {folder}/ nor tests/{folder}/ is a folder of the kit"
            )
    return wrong


def test_every_test_module_sits_in_the_folder_of_a_room_of_the_kit():
    assert misplaced(TESTS, KIT_ROOT) == []


def test_a_flat_test_a_helper_in_a_folder_and_a_folder_the_kit_lacks_are_each_named(tmp_path):
    kit = tmp_path / "kit"
    tests = kit / "tests" / "kit"
    modules = ["helpers.py", "test_flat.py", "grader/test_fine.py", "submissions/test_fine_too.py"]
    for module in [*modules, "grader/helper.py", "nowhere/test_lost.py"]:
        (tests / module).parent.mkdir(parents=True, exist_ok=True)
        (tests / module).write_text("")
    (kit / "grader").mkdir()
    (kit / "tests" / "submissions").mkdir()
    assert [line.split(":")[0] for line in misplaced(tests, kit)] == [
        "grader/helper.py",
        "nowhere/test_lost.py",
        "test_flat.py",
    ]


def test_no_two_test_modules_share_a_basename():
    names = Counter(path.name for path in TESTS.rglob("*.py") if _is_test_module(path))
    assert [name for name, count in names.items() if count > 1] == []
