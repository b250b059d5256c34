"""The worker's `import bpe`: when the package does not import, import what can be imported.

One broken module must cost only the tests that need it (a syntax error in tokenizer.py must not
cost Part 1). So when `import bpe` fails, each module of the contract is imported alone, under a
stand-in package that skips `__init__.py`. The names of the modules that import are served as
usual; every other name raises `DoesNotImport`, whose `.data` (file, line, error) goes back to the
trusted side as data (grader/errors.py: ModuleDoesNotImport). The file named is the root of the
failure: the file whose own code failed, so a module broken only because it imports a broken one
names that one. When no contract module shares the root of the package's failure (a broken
`__init__.py`, or a file only it imports), the whole package does not import: every name raises.

Stdlib only: this file is copied into the sandbox (grader/sandbox/box.py).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import traceback
import types

# The contract: each name of the package, by the module that defines it. starter/bpe/__init__.py
# re-exports exactly these (tests/kit/grader/sandbox/test_importing.py holds the two together).
CONTRACT = {
    "char_bpe": ("CharBPE", "merge"),
    "gpt2_bytes": ("bytes_to_unicode", "unicode_to_bytes"),
    "pretokenize": ("GPT2_PATTERN", "pretokenize", "split_on_special_tokens"),
    "tokenizer": ("BPETokenizer",),
    "training": ("train_bpe",),
}
TEXT_CAP = 300


class DoesNotImport(Exception):
    """A name of a module that does not import. `.data`: file, line, error, message, text."""

    def __init__(self, data: dict) -> None:
        at = f" at line {data['line']}" if data["line"] else ""
        super().__init__(f"{data['file']} does not import: {data['error']}{at}: {data['message']}")
        self.data = data


def import_package(submission: str) -> types.ModuleType:
    """`bpe` from `submission` (the folder holding `bpe/`), or a stand-in when it does not import."""
    try:
        import bpe  # noqa: F401  (the student's package, from the sandbox copy)

        return sys.modules["bpe"]
    except Exception as exc:
        whole = failure(exc, submission, os.path.join("bpe", "__init__.py"))
    _forget()
    package = _stand_in(submission)
    broken, pending, progress = {}, list(CONTRACT), True
    while pending and progress:  # again while one imports: a module may use names of another
        progress = False
        for module in list(pending):
            try:
                loaded = importlib.import_module("bpe." + module)
            except Exception as exc:
                broken[module] = failure(exc, submission, os.path.join("bpe", module + ".py"))
                continue
            for name in CONTRACT[module]:
                if hasattr(loaded, name):  # a name missing from its module stays an AttributeError
                    setattr(package, name, getattr(loaded, name))
            pending.remove(module)
            broken.pop(module, None)
            progress = True
    if not any(f["file"] == whole["file"] for f in broken.values()):
        _forget()
        return _stand_in(submission, default=whole)
    package.__dict__["_broken"] = {n: broken[m] for m in broken for n in CONTRACT[m]}
    return package


def _stand_in(submission: str, default: dict | None = None) -> types.ModuleType:
    """A package `bpe` whose submodules import from the sandbox copy, without its `__init__.py`."""
    folder = os.path.join(submission, "bpe")
    spec = importlib.machinery.ModuleSpec("bpe", None, is_package=True)
    spec.submodule_search_locations = [folder]
    package = importlib.util.module_from_spec(spec)
    package.__path__ = [folder]
    package.__dict__["_broken"] = {}
    package.__dict__["_default"] = default

    def __getattr__(name: str):
        data = package.__dict__["_broken"].get(name) or package.__dict__["_default"]
        if data is None or name.startswith("__"):
            raise AttributeError(f"module 'bpe' has no attribute {name!r}")
        raise DoesNotImport(data)

    package.__getattr__ = __getattr__
    sys.modules["bpe"] = package
    return package


def _forget() -> None:
    for name in [m for m in sys.modules if m == "bpe" or m.startswith("bpe.")]:
        del sys.modules[name]


def failure(exc: BaseException, submission: str, fallback: str) -> dict:
    """Where an import failed: the file whose own code failed (relative to `submission`), its line.

    A SyntaxError names its file; any other error, the innermost frame that runs a module's top
    level (`<module>`) in the submission; `fallback` when none does (a missing file)."""
    root = os.path.realpath(submission) + os.sep
    inside = lambda path: bool(path) and os.path.realpath(path).startswith(root)  # noqa: E731
    file, line, text, message = fallback, None, "", _safe_str(exc)
    if isinstance(exc, SyntaxError) and inside(exc.filename):
        file, line, text, message = exc.filename, exc.lineno, exc.text or "", exc.msg or message
    else:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if inside(f.filename)]
        tops = [f for f in frames if f.name == "<module>"] or frames
        if tops:
            file, line, text = tops[-1].filename, tops[-1].lineno, tops[-1].line or ""
    if os.path.isabs(file):
        file = os.path.relpath(os.path.realpath(file), root)
    return {
        "file": file.replace(os.sep, "/")[:TEXT_CAP],
        "line": line if isinstance(line, int) else None,
        "error": type(exc).__name__[:100],
        "message": " ".join(message.split())[:TEXT_CAP],
        "text": text.strip()[:TEXT_CAP],
    }


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except BaseException:
        return f"<the {type(exc).__name__} could not be printed>"
