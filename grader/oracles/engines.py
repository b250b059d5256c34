"""Who computes the fixtures' expected values: the trusted oracles (the default) or the reference
solution (`bpe-kit fixtures --engine solution`). The kit's tests run both and compare them with
the committed files, so two independent implementations vouch for every golden value.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from grader.oracles import char_bpe
from grader.oracles.encoder import TrustedEncoder
from grader.oracles.trainer import read_corpus, train

# What training gives, and what a tokenizer is built from: (vocab, merges).
Model = tuple[dict[int, bytes], list[tuple[bytes, bytes]]]


class TrustedEngine:
    """grader.oracles' slow but obviously correct trainer and encoder."""

    def train(self, path: Path, vocab_size: int, special_tokens: list[str]) -> Model:
        return train(read_corpus(path), vocab_size, special_tokens)

    def first_merges(
        self, text: str, vocab_size: int, special_tokens: list[str], n: int
    ) -> list[tuple[bytes, bytes]]:
        return train(text, vocab_size, special_tokens, max_merges=n)[1]

    def encoder(
        self, vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], special_tokens: list[str]
    ) -> TrustedEncoder:
        return TrustedEncoder(vocab, merges, special_tokens)

    def char_train(self, text: str, num_merges: int) -> tuple[list[str], list]:
        return char_bpe.train(text, num_merges)


class SolutionEngine:
    """The reference solution (solution/bpe), imported in this process."""

    def __init__(self, parent: Path) -> None:
        # Imported under a private name: a `bpe` already imported in this process stays untouched.
        import importlib.util

        init = parent / "bpe" / "__init__.py"
        spec = importlib.util.spec_from_file_location(
            "_bpe_fixture_engine", init, submodule_search_locations=[str(init.parent)]
        )
        self.bpe = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = self.bpe
        spec.loader.exec_module(self.bpe)

    def train(self, path: Path, vocab_size: int, special_tokens: list[str]) -> Model:
        return self.bpe.train_bpe(path, vocab_size, special_tokens)

    def first_merges(
        self, text: str, vocab_size: int, special_tokens: list[str], n: int
    ) -> list[tuple[bytes, bytes]]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "corpus.txt"
            path.write_bytes(text.encode("utf-8"))
            return self.bpe.train_bpe(path, vocab_size, special_tokens)[1][:n]

    def encoder(
        self, vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], special_tokens: list[str]
    ) -> Any:
        """The reference's BPETokenizer (a class of the module imported here)."""
        return self.bpe.BPETokenizer(vocab, merges, special_tokens)

    def char_train(self, text: str, num_merges: int) -> tuple[list[str], list]:
        model = self.bpe.CharBPE.train(text, num_merges)
        return list(model.vocab), json.loads(json.dumps(model.merges))


# Who computes the fixtures: both answer the same questions, so either writes them.
Engine = TrustedEngine | SolutionEngine
