"""The rubric and the graded suite agree: 100 points, one entry per graded test and back."""

from __future__ import annotations

import ast

from grader import rubric
from grader.paths import KIT_ROOT as KIT

GRADED = KIT / "tests" / "graded"
PART_OF_FILE = {
    "test_part1.py": 1,
    "test_part2.py": 2,
    "test_part3.py": 3,
    "test_efficiency.py": "efficiency",
}


def _graded_tests() -> dict[str, ast.FunctionDef]:
    found = {}
    for path in sorted(GRADED.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found[f"{path.name}::{node.name}"] = node
    return found


def _entries():
    return rubric.load(KIT / "grader" / "rubric.toml")


def test_total_is_exactly_100():
    assert sum(e.points for e in _entries()) == 100


def test_every_graded_test_is_in_the_rubric_and_back():
    in_rubric = {e.id for e in _entries()}
    in_suite = set(_graded_tests())
    assert in_suite - in_rubric == set(), "graded tests missing from grader/rubric.toml"
    assert in_rubric - in_suite == set(), "rubric entries without a graded test"


def test_visibility_values_and_hidden_files():
    for e in _entries():
        assert e.visibility in rubric.VISIBILITIES
        hidden_file = e.id.startswith("test_hidden_")
        assert (e.visibility != "visible") == hidden_file, (
            f"{e.id}: hidden tests live in test_hidden_*.py only"
        )


def test_parts_match_files_and_numbers():
    for e in _entries():
        file = e.id.split("::")[0]
        if file in PART_OF_FILE:
            assert e.part == PART_OF_FILE[file], e.id
        prefix = "E" if e.part == "efficiency" else str(e.part)
        assert e.number.split(".")[0] == prefix, f"{e.id}: number {e.number} does not match part {e.part}"


def test_every_graded_test_has_its_own_timeout():
    for node_id, node in _graded_tests().items():
        marks = [
            d
            for d in node.decorator_list
            if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.timeout"
        ]
        assert len(marks) == 1 and marks[0].args, f"{node_id} needs exactly one @pytest.mark.timeout(seconds)"


def test_public_tests_never_read_hidden_fixtures():
    for path in GRADED.glob("test_*.py"):
        text = path.read_text(encoding="utf-8")
        uses_hidden = '"hidden"' in text
        assert uses_hidden == path.name.startswith("test_hidden_"), (
            f"{path.name}: hidden fixtures belong to test_hidden_*.py"
        )


def test_graded_tests_never_import_the_reference():
    for path in GRADED.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names]
                if isinstance(node, ast.ImportFrom) and node.module:
                    names.append(node.module)
                assert not any(n.split(".")[0] in ("solution", "bpe") for n in names), (
                    f"{path.name} imports {names}"
                )


def test_graded_modules_keep_their_own_messages():
    """Pytest's assertion rewriting would append its own diff to the students' messages."""
    for path in GRADED.glob("test_*.py"):
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert "PYTEST_DONT_REWRITE" in docstring, path.name
