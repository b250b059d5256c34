"""The starter is the solution's public surface, with teaching stubs in place of the code.

Students must be able to swap their finished starter for the solution and pass: same modules, same
names, same signatures (defaults and method kinds included), and every graded stub must raise
NotImplementedError so the grader reports it as "not implemented" rather than wrong.
"""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import pytest
from handout_support import PUBLIC_MODULES, SOLUTION, STARTER, solution, starter, submodule

from grader.release.starter_check import GIVEN as FILLED  # given to students


def _public_files(folder):
    return sorted(p.name for p in (folder / "bpe").glob("*.py") if not p.name.startswith("_"))


def test_same_public_modules():
    assert _public_files(STARTER) == _public_files(SOLUTION) == sorted(m + ".py" for m in PUBLIC_MODULES)


def test_each_answer_is_in_the_file_of_its_stub():
    """A student diffs their training.py against the solution's: the solution has no other top-level
    module, and what no stub asks for lives in extras/, each module saying so."""
    files = {p.name for p in (SOLUTION / "bpe").glob("*.py")}
    assert files == {p.name for p in (STARTER / "bpe").glob("*.py")}
    folders = {p.name for p in (SOLUTION / "bpe").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= {"extras"}
    for extra in (SOLUTION / "bpe" / "extras").glob("*.py"):
        doc = ast.get_docstring(ast.parse(extra.read_text(encoding="utf-8"))) or ""
        assert "no stub asks for" in " ".join(doc.split()).lower(), extra.name


def test_main_is_the_solutions_verbatim():
    assert (STARTER / "bpe" / "__main__.py").read_bytes() == (SOLUTION / "bpe" / "__main__.py").read_bytes()


def test_same_exports():
    assert sorted(starter().__all__) == sorted(solution().__all__)
    for name in starter().__all__:
        assert hasattr(starter(), name), name


def _annotation(a) -> str | None:
    if a is inspect.Parameter.empty:
        return None
    if a is None:
        return "None"
    if isinstance(a, str):
        text = a.strip("'\"")
    elif isinstance(a, type):
        text = a.__name__
    else:
        text = repr(a).replace("collections.abc.", "").replace("typing.", "")
    return text.replace(" ", "")


def _shape(fn) -> tuple:
    sig = inspect.signature(fn)
    params = [(p.name, p.kind, p.default, _annotation(p.annotation)) for p in sig.parameters.values()]
    return params, _annotation(sig.return_annotation)


def _public_items(package):
    """(qualified name, kind, object) for every public function, class and method, and every
    exported constant (module-level constants that are not exported are implementation detail)."""
    for module_name in PUBLIC_MODULES:
        module = submodule(package, module_name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", module.__name__) != module.__name__:
                continue
            if inspect.isclass(obj):
                yield name, "class", obj
                for attr, raw in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    kind = type(raw).__name__  # function, classmethod, staticmethod, property
                    yield f"{name}.{attr}", kind, getattr(obj, attr)
            elif inspect.isfunction(obj):
                yield name, "function", obj
            elif name in package.__all__:
                yield name, "constant", obj


def test_same_names_kinds_and_signatures():
    theirs = {name: (kind, obj) for name, kind, obj in _public_items(solution())}
    mine = {name: (kind, obj) for name, kind, obj in _public_items(starter())}
    assert sorted(mine) == sorted(theirs)
    for name, (kind, obj) in mine.items():
        assert kind == theirs[name][0], name
        if callable(obj) and kind != "class":
            assert _shape(obj) == _shape(theirs[name][1]), name


def test_constants_are_the_same():
    assert starter().GPT2_PATTERN == solution().GPT2_PATTERN


def test_the_given_byte_table_is_gpt2s():
    assert starter().bytes_to_unicode() == solution().bytes_to_unicode()
    assert starter().unicode_to_bytes() == solution().unicode_to_bytes()


def test_every_public_item_has_a_docstring():
    for package in (starter(), solution()):
        for module_name in PUBLIC_MODULES:
            assert inspect.getdoc(submodule(package, module_name)), module_name
    for name, kind, obj in _public_items(starter()):
        if kind != "constant":
            assert inspect.getdoc(obj), f"starter: {name} has no docstring"
    for name, kind, obj in _public_items(solution()):
        if kind not in ("constant",) and not name.endswith("__init__"):
            assert inspect.getdoc(obj), f"solution: {name} has no docstring"


def test_starter_imports_cleanly_in_a_fresh_interpreter():
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import bpe, bpe.__main__; print(len(bpe.__all__))"],
        cwd=STARTER,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(len(solution().__all__))


def _stub_calls(bpe, tmp_path):
    """A valid call for every graded function and method (instances made without __init__)."""
    text_file = tmp_path / "t.txt"
    text_file.write_text("low lower", encoding="utf-8")
    vocab_file, merges_file = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab_file.write_text("{}", encoding="utf-8")
    merges_file.write_text("", encoding="utf-8")
    char = bpe.CharBPE(["\ufffd", "a"], [])
    tok = object.__new__(bpe.BPETokenizer)
    byte_vocab = {i: bytes([i]) for i in range(256)}
    return {
        "merge": lambda: bpe.merge([1, 2], (1, 2), 3),
        "CharBPE.train": lambda: bpe.CharBPE.train("aa", 1),
        "CharBPE.encode": lambda: char.encode("a"),
        "CharBPE.decode": lambda: char.decode([1]),
        "CharBPE.state": lambda: char.state(),
        "split_on_special_tokens": lambda: bpe.split_on_special_tokens("a", ["b"]),
        "pretokenize": lambda: bpe.pretokenize("a b"),
        "train_bpe": lambda: bpe.train_bpe(text_file, 300, []),
        "BPETokenizer.__init__": lambda: bpe.BPETokenizer(byte_vocab, []),
        "BPETokenizer.from_files": lambda: bpe.BPETokenizer.from_files(vocab_file, merges_file),
        "BPETokenizer.save": lambda: tok.save(tmp_path / "v", tmp_path / "m"),
        "BPETokenizer.encode": lambda: tok.encode("a"),
        "BPETokenizer.encode_iterable": lambda: list(tok.encode_iterable(["a"])),
        "BPETokenizer.decode": lambda: tok.decode([97]),
    }


def test_every_graded_stub_raises_not_implemented(tmp_path):
    calls = _stub_calls(starter(), tmp_path)
    callables = {name for name, kind, _ in _public_items(starter()) if kind not in ("class", "constant")}
    assert callables - FILLED == set(calls), "each public callable is either given or a graded stub"
    for _name, call in calls.items():
        with pytest.raises(NotImplementedError):
            call()


def test_the_same_calls_work_on_the_solution(tmp_path):
    """The stub calls above are real calls: the solution answers them without NotImplementedError."""
    for name, call in _stub_calls(solution(), tmp_path).items():
        if name.startswith("BPETokenizer.") and name not in (
            "BPETokenizer.__init__",
            "BPETokenizer.from_files",
        ):
            continue  # needs a constructed instance: covered by the starter's own examples
        try:
            call()
        except NotImplementedError:  # pragma: no cover - a failure message, not a branch
            pytest.fail(f"solution: {name} raises NotImplementedError")


def test_gpt2_bytes_is_the_starters_verbatim():
    """The byte table is given to students whole: the model answer's copy is the same file."""
    given = (STARTER / "bpe" / "gpt2_bytes.py").read_bytes()
    assert (SOLUTION / "bpe" / "gpt2_bytes.py").read_bytes() == given


def test_the_part_2_answer_needs_nothing_from_extras():
    """A student who diffs their training.py against the model answer meets Part 2 alone: extras/
    builds on training.py, never the reverse."""
    tree = ast.parse((SOLUTION / "bpe" / "training.py").read_text(encoding="utf-8"))
    imported = ["." * n.level + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert imported and not [m for m in imported if "extras" in m.split(".")]
    # `from . import extras` names it as an import, not a module
    assert not [
        a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names if a.name == "extras"
    ]
    assert {m for m in imported if m.startswith(".")} <= {".pretokenize"}
