"""CS336's `Tokenizer(vocab, merges, special_tokens=None)`, over the reference tokenizer."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cs336_basics import bpe


class Tokenizer:
    def __init__(self, vocab, merges, special_tokens=None):
        self.vocab = dict(vocab)
        self.merges = list(merges)
        self.special_tokens = list(special_tokens or [])
        self._inner = bpe.BPETokenizer(self.vocab, self.merges, self.special_tokens)
        self.vocab = self._inner.vocab  # with the special tokens it appended

    def encode(self, text: str) -> list[int]:
        return self._inner.encode(text)

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        yield from self._inner.encode_iterable(iterable)

    def decode(self, ids: list[int]) -> str:
        return self._inner.decode(ids)
