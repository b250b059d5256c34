"""A module that does not import costs only the tests that need it (grader/sandbox/importing.py).

The worker imports what can be imported; a name of a broken module raises ModuleDoesNotImport on the
trusted side, with the root file and line as data; the report says it once, in one banner, and
marks each test that needed the module "not graded".
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import catalogue
import jail
import pytest

from grader import report
from grader.errors import ModuleDoesNotImport
from grader.paths import KIT_ROOT
from grader.rubric import Entry
from grader.sandbox.importing import CONTRACT
from grader.sandbox.remote_errors import rebuild_exception
from grader.scoring import Scored
from grader.terms import Status

KIT = KIT_ROOT


def _exports(init: Path) -> dict[str, tuple[str, ...]]:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return {
        node.module: tuple(sorted(a.name for a in node.names))
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1
    }


@pytest.mark.parametrize("tree", ["starter", "solution"])
def test_the_contract_is_what_the_package_re_exports(tree):
    assert _exports(KIT / tree / "bpe" / "__init__.py") == {m: tuple(sorted(n)) for m, n in CONTRACT.items()}


# ------------------------------------------------------------------------------- in the worker
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from grader.sandbox import importing
bpe = importing.import_package(sys.argv[1])
out = {}
for module, names in importing.CONTRACT.items():
    for name in names:
        try:
            getattr(bpe, name)
            out[name] = "ok"
        except importing.DoesNotImport as e:
            out[name] = e.data
print(json.dumps(out))
"""


def _probe(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> dict:
    """Import a copy of the solution with `edits` ({file: (old, new)}) in a fresh interpreter."""
    sub = tmp_path / "sub"
    catalogue.materialize(
        catalogue.Entry(
            "probe",
            "mutant",
            "",
            {"replace": [{"file": f, "old": o, "new": n} for f, (o, n) in edits.items()]},
            "",
            (),
        ),
        sub,
    )
    r = subprocess.run(
        [sys.executable, "-c", PROBE, str(sub)], cwd=KIT, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_syntax_error_in_the_tokenizer_costs_only_its_names(tmp_path):
    got = _probe(
        tmp_path,
        {
            "bpe/tokenizer.py": (
                "    def encode(self, text: str) -> list[int]:\n",
                "    def encode(self text: str) -> list[int]:\n",
            )
        },
    )
    line = _line_of(tmp_path / "sub/bpe/tokenizer.py", "def encode(self text")
    data = got.pop("BPETokenizer")
    assert (data["file"], data["line"], data["error"]) == ("bpe/tokenizer.py", line, "SyntaxError")
    assert data["text"] == "def encode(self text: str) -> list[int]:" and data["message"].startswith(
        "invalid syntax"
    )
    assert set(got.values()) == {"ok"}, got


def test_a_module_that_others_import_is_named_as_the_root(tmp_path):
    got = _probe(
        tmp_path,
        {"bpe/pretokenize.py": ("import regex\n", "import regex\nraise ValueError('broken on purpose')\n")},
    )
    line = _line_of(tmp_path / "sub/bpe/pretokenize.py", "broken on purpose")
    for name in ("pretokenize", "GPT2_PATTERN", "split_on_special_tokens", "train_bpe", "BPETokenizer"):
        assert got[name]["file"] == "bpe/pretokenize.py", (name, got[name])
        assert (got[name]["line"], got[name]["error"], got[name]["message"]) == (
            line,
            "ValueError",
            "broken on purpose",
        )
    assert {n: got[n] for n in ("CharBPE", "merge", "bytes_to_unicode", "unicode_to_bytes")} == dict.fromkeys(
        ("CharBPE", "merge", "bytes_to_unicode", "unicode_to_bytes"), "ok"
    )


def test_a_module_that_uses_the_packages_names_still_imports(tmp_path):
    """tokenizer.py takes train_bpe from the package: it imports once training.py has."""
    got = _probe(
        tmp_path,
        {
            "bpe/char_bpe.py": ("import itertools\n", "import itertools\nraise RuntimeError('no')\n"),
            "bpe/tokenizer.py": (
                "from .pretokenize import _compile_specials, _split_with, pretokenize\n",
                "from .pretokenize import _compile_specials, _split_with, pretokenize\n"
                "from . import train_bpe as _from_the_package\n",
            ),
        },
    )
    assert {got.pop("CharBPE")["file"], got.pop("merge")["file"]} == {"bpe/char_bpe.py"}
    assert set(got.values()) == {"ok"}, got


def test_a_broken_init_costs_every_name(tmp_path):
    got = _probe(tmp_path, {"bpe/__init__.py": ("__all__ = [\n", "x = = 1\n__all__ = [\n")})
    line = _line_of(tmp_path / "sub/bpe/__init__.py", "x = = 1")
    assert {(d["file"], d["line"], d["error"]) for d in got.values()} == {
        ("bpe/__init__.py", line, "SyntaxError")
    }


# -------------------------------------------------------------------------------- trusted side
def test_the_condition_travels_as_data_not_as_a_message():
    data = {
        "file": "bpe/tokenizer.py",
        "line": 231,
        "error": "SyntaxError",
        "message": "expected ':'",
        "text": "x",
    }
    exc = rebuild_exception(
        {"type": "DoesNotImport", "mro": [], "message": "ignored", "traceback": "", "not_imported": data}
    )
    assert isinstance(exc, ModuleDoesNotImport) and not isinstance(exc, Exception)
    assert exc.data() == data
    assert exc.verdict() == "not graded: bpe/tokenizer.py does not import (line 231)"
    assert str(exc) == "bpe/tokenizer.py does not import: SyntaxError at line 231: expected ':'"
    forged = rebuild_exception({"not_imported": {"file": 7, "line": "231\n", "error": None}})
    assert (forged.file, forged.line, forged.error) == ("7", None, "")


def _scored(number: str, status: str, data: dict | None = None) -> Scored:
    entry = Entry(f"test_x.py::test_{number}", number, f"test {number}", number[0], 2, "visible")
    feedback = ModuleDoesNotImport(**data).verdict() if data else ""
    return Scored(entry, status, 2 if status == "passed" else 0, feedback, "", 0.1, {}, not_imported=data)


def test_the_report_says_it_once_and_marks_each_test(tmp_path):
    tok = {
        "file": "bpe/tokenizer.py",
        "line": 231,
        "error": "SyntaxError",
        "message": "expected ':'",
        "text": "def f()",
    }
    scored = [_scored("1.1", "passed"), *(_scored(f"3.{i}", Status.NOT_GRADED, tok) for i in range(1, 6))]
    text = report.terminal(scored, width=100)
    assert text.count("does not import:") == 1
    assert "bpe/tokenizer.py does not import: SyntaxError at line 231: expected ':'" in text
    assert (
        "The 5 test(s) that need it are not graded (0 points each); the others are graded as usual." in text
    )
    assert text.count("not graded: bpe/tokenizer.py does not import (line 231)") == 5
    assert "--- 3.1: not graded: bpe/tokenizer.py does not import (line 231)\n" in text
    results = report.results_json(scored, execution_time=1, isolation="test")
    assert results["output"].count("does not import:") == 1 and results["score"] == 2
    assert [t["output"] for t in results["tests"][1:]] == [
        "not graded: bpe/tokenizer.py does not import (line 231)"
    ] * 5
    junit = report.write_junit(scored, tmp_path, execution_time=1).read_text()
    assert (
        junit.count('message="not graded: bpe/tokenizer.py does not import (line 231)" type="not graded"')
        == 5
    )


# ---------------------------------------------------------------------------------- end to end
@pytest.mark.slow
def test_a_tokenizer_syntax_error_leaves_part1_graded(tmp_path):
    """The catalogue row, graded jailed through the CLI on Part 1 and a few tokenizer and training tests."""
    sub = catalogue.materialize(catalogue.by_name("tokenizer_syntax_error"), tmp_path / "submission")
    line = _line_of(sub / "bpe/tokenizer.py", "    def encode(self, text: str) -> list[int]")
    done = jail.grade_in_jail(
        sub, tmp_path / "out", tests="test_part1 or test_encode_basic or test_decode or test_train_tiny_words"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = " ".join(done.stdout.split())  # the report wraps its lines at the terminal's width
    assert text.count("does not import:") == 1, done.stdout
    assert f"bpe/tokenizer.py does not import: SyntaxError at line {line}: expected ':'" in text
    assert text.count(f"not graded: bpe/tokenizer.py does not import (line {line})") == 3
    assert "Traceback" not in text
    tests = {t["number"]: t for t in done.results["tests"]}
    assert all(t["score"] == t["max_score"] for n, t in tests.items() if n.startswith(("1.", "2.")))
    assert sum(n.startswith("1.") for n in tests) == 7 and "2.3" in tests
    for n in ("3.1", "3.4", "3.11"):
        assert (tests[n]["score"], tests[n]["output"]) == (
            0,
            f"not graded: bpe/tokenizer.py does not import (line {line})",
        )
    assert done.results["output"].count("does not import:") == 1
