"""A sandbox's copies are compiled once (grader/sandbox/bytecode.py): every worker reads that
bytecode instead of compiling the runtime, `regex` and the submission again, and nothing a student
sees changes."""

from __future__ import annotations

import importlib.util
import os
from importlib._bootstrap_external import _code_to_timestamp_pyc
from pathlib import Path

import pytest
from grader_toys import HONEST, write_submission

from grader.errors import ModuleDoesNotImport
from grader.sandbox import bytecode
from grader.sandbox.box import Sandbox
from grader.sandbox.proxy import connect

SOURCE = (
    HONEST
    + """
def said():
    return "source"

def fails():
    raise ValueError("raised by the submission")
"""
)


def current(source: Path) -> bool:
    """True when `source` has a timestamped .pyc that Python takes as up to date."""
    pyc = Path(importlib.util.cache_from_source(str(source)))
    if not pyc.is_file():
        return False
    head, st = pyc.read_bytes()[:16], source.stat()
    return (
        head[:4] == importlib.util.MAGIC_NUMBER
        and int.from_bytes(head[4:8], "little") == 0
        and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF
    )


def test_every_module_a_worker_imports_is_compiled_once_in_the_sandbox(tmp_path):
    root = write_submission(tmp_path / "sub", SOURCE, extra={"bpe/helpers/deep.py": "X = 1\n"})
    sandbox = Sandbox(root)
    try:
        folders = [sandbox.root / "runtime" / "kitworker", sandbox.root / "submission" / "bpe"]
        if importlib.util.find_spec("regex") is not None:
            folders.append(sandbox.root / "runtime" / "lib" / "regex")
            assert not (sandbox.root / "runtime" / "lib" / "regex" / "tests").exists()  # never imported
        sources = [p for folder in folders for p in folder.rglob("*.py")]
        assert len(sources) >= 8
        assert [p for p in sources if not current(p)] == []
    finally:
        sandbox.close()


def _write(path: Path, data: bytes) -> None:
    """Write into a sealed folder (read-only to its owner, the user running the tests)."""
    os.chmod(path.parent, 0o755)
    if path.exists():
        os.chmod(path, 0o644)
    path.write_bytes(data)
    os.chmod(path.parent, 0o555)


def test_a_worker_reads_the_bytecode_and_its_tracebacks_name_the_students_file(tmp_path):
    root = write_submission(tmp_path / "sub", SOURCE)
    with connect(root) as bpe:
        sandbox = bpe._session.sandbox
        init = sandbox.root / "submission" / "bpe" / "__init__.py"
        # The same module with one answer changed, under the copy's own header: a worker that
        # reads the bytecode gives that answer.
        changed = init.read_text().replace('return "source"', 'return "bytecode"')
        st = init.stat()
        pyc = Path(importlib.util.cache_from_source(str(init)))
        _write(
            pyc, bytes(_code_to_timestamp_pyc(compile(changed, str(init), "exec"), st.st_mtime, st.st_size))
        )
        assert bpe.said() == "bytecode"
        with pytest.raises(ValueError) as info:
            bpe.fails()
        built_at = str(sandbox.root)
        line = init.read_text().splitlines().index('    raise ValueError("raised by the submission")') + 1
    shown = info.value.student_traceback
    assert f'File "bpe/__init__.py", line {line}, in fails' in shown and "raised by the submission" in shown
    assert built_at not in shown


def test_a_file_that_does_not_compile_is_left_for_the_worker_to_report(tmp_path):
    root = write_submission(
        tmp_path / "broken", "def merge(:\n", extra={"bpe/deep.py": "(" * 300 + ")" * 300}
    )
    bytecode.compile_submission(root / "bpe")
    assert not any((root / "bpe").rglob("*.pyc"))
    with connect(root) as broken:
        with pytest.raises(ModuleDoesNotImport) as info:
            broken.merge([1], (1, 1), 2)
    assert (info.value.file, info.value.line, info.value.error) == ("bpe/__init__.py", 1, "SyntaxError")
