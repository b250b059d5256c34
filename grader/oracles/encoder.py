"""A tiny trusted encoder: the expected ids for property tests, computed without the submission.

Per pre-token it repeatedly merges the adjacent pair with the lowest merge rank, all occurrences
left to right, until no ranked pair is left: GPT-2's rule, written for clarity. Results are memoized
per pre-token so that checking a multi-MB stream stays quick.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import regex

from grader.oracles.trainer import GPT2_PATTERN, split_on_specials

if TYPE_CHECKING:
    from collections.abc import Iterable


class TrustedEncoder:
    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: Iterable[str] | None = None,
    ) -> None:
        self.vocab = dict(vocab)
        self.special_tokens = list(dict.fromkeys(special_tokens or []))
        for special in self.special_tokens:
            if special.encode("utf-8") not in self.vocab.values():
                self.vocab[max(self.vocab) + 1] = special.encode("utf-8")
        self.ids = {}
        for i, token in sorted(self.vocab.items()):
            self.ids.setdefault(token, i)
        self.ranks = {pair: rank for rank, pair in reversed(list(enumerate(merges)))}
        self._memo: dict[bytes, list[int]] = {}

    def _merge_word(self, word: bytes) -> list[int]:
        if word not in self._memo:
            self._memo[word] = self._merge_uncached(word)
        return self._memo[word]

    def _merge_uncached(self, word: bytes) -> list[int]:
        parts = [bytes([b]) for b in word]
        while len(parts) > 1:
            ranked = [(self.ranks[p], p) for p in itertools.pairwise(parts) if p in self.ranks]
            if not ranked:
                break
            _, pair = min(ranked)
            out, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and (parts[i], parts[i + 1]) == pair:
                    out.append(pair[0] + pair[1])
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        return [self.ids[p] for p in parts]

    def ids_of(self, pretoken: str, special: bool = False) -> list[int]:
        """The ids of one pre-token (merged), or of one special token (its single id)."""
        if special:
            return [self.ids[pretoken.encode("utf-8")]]
        return self._merge_word(pretoken.encode("utf-8"))

    def encode(self, text: str) -> list[int]:
        specials = set(self.special_tokens)
        out: list[int] = []
        for piece in split_on_specials(text, self.special_tokens):
            if piece in specials:
                out.append(self.ids[piece.encode("utf-8")])
                continue
            for word in regex.findall(GPT2_PATTERN, piece):
                out.extend(self._merge_word(word.encode("utf-8")))
        return out

    def decode(self, ids: list[int]) -> str:
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")
