"""The `--inprocess` fixture: the real module plus the same `bpe.kit` namespace, for debugging."""

from __future__ import annotations

import pytest
from grader_toys import HONEST, write_submission

from grader.sandbox.inprocess import InprocessBpe, LocalObject
from grader.sandbox.kit import CallStats, StreamResult

SLURPER = (
    HONEST
    + """
class Slurper(CharBPE):
    def encode_iterable(self, chunks):
        yield len("".join(chunks))

def save(path):
    with open(path, "w") as f:
        f.write("saved")

def busy(n):
    return sum(i * i for i in range(n))
"""
)


@pytest.fixture
def bpe(tmp_path):
    proxy = InprocessBpe(write_submission(tmp_path / "sub", SLURPER))
    yield proxy
    proxy.kit.close()


def test_calls_reach_the_real_objects(bpe):
    tok = bpe.CharBPE.train("abab", 0)
    assert isinstance(tok, LocalObject) and type(tok._target).__name__ == "CharBPE"
    assert tok.encode("ba") == [2, 1] and tok.vocab == ["\ufffd", "a", "b"]
    with pytest.raises(NotImplementedError):
        bpe.train_bpe("x", 300, [])
    with pytest.raises(ValueError, match="unknown id 9"):
        tok.decode([9])


def test_kit_namespace_matches_the_sandboxed_one(bpe, tmp_path):
    bpe.busy(200_000)
    assert isinstance(bpe.kit.last_call, CallStats) and bpe.kit.last_call.cpu_s > 0
    bpe.save(bpe.kit.outpath("out.txt"))
    assert bpe.kit.read_output("out.txt") == b"saved"
    with pytest.raises(ValueError):
        bpe.kit.outpath("../x")
    big = tmp_path / "big.txt"
    big.write_text("abcd" * (8 * 1024 * 1024))  # 32 MiB
    lazy = bpe.kit.encode_file_streaming(bpe.CharBPE(["a"], []), big, chunk_chars=65536)
    greedy = bpe.kit.encode_file_streaming(bpe.Slurper(["a"], []), big, chunk_chars=65536)
    assert isinstance(lazy, StreamResult) and sum(lazy.ids) == sum(greedy.ids) == 32 * 1024 * 1024
    assert greedy.peak_growth_bytes > 25 * 1024 * 1024 > lazy.peak_growth_bytes
    with bpe.kit.timeout(5):
        assert bpe.merge([1, 2], (1, 2), 3) == [3]


def test_restart_reimports_the_package(bpe, tmp_path):
    first = bpe.__wrapped__
    bpe.kit.restart()
    assert bpe.__wrapped__ is not first and bpe.merge([1], (1, 1), 2) == [1]


def test_a_module_that_does_not_import_costs_only_the_names_it_defines(tmp_path):
    """As in the sandbox (grader/sandbox/importing.py): Part 1 is graded when tokenizer.py is broken."""
    from grader.errors import ModuleDoesNotImport

    root = write_submission(
        tmp_path / "sub",
        "from .char_bpe import merge\nfrom .tokenizer import BPETokenizer\n",
        extra={
            "bpe/char_bpe.py": "def merge(ids, pair, new_id):\n    if not ids:\n        import bpe\n\n"
            "        return bpe.BPETokenizer\n    return [new_id]\n",
            "bpe/tokenizer.py": "class BPETokenizer:\n    def encode(self\n",
        },
    )
    bpe = InprocessBpe(root)
    try:
        assert bpe.merge([1, 1], (1, 1), 9) == [9]
        with pytest.raises(ModuleDoesNotImport) as info:
            _ = bpe.BPETokenizer
        assert info.value.file == "bpe/tokenizer.py" and info.value.line == 2
        assert info.value.verdict() == "not graded: bpe/tokenizer.py does not import (line 2)"
        with pytest.raises(ModuleDoesNotImport):
            bpe.merge([], (1, 1), 9)  # reached inside a call, as a lazy import would
    finally:
        bpe.kit.close()
