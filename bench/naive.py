"""The textbook BPE trainer, kept slow on purpose: after every merge it recounts every pair.

It follows the kit's contract exactly (specials split out first, GPT-2 pre-tokens, most frequent
pair wins, ties go to the lexicographically greater pair), so its merges must equal the
reference's: the bench checks that, and the gap in time is the whole point of the row.
"""

from __future__ import annotations

import itertools
from collections import Counter

import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _pieces(text: str, specials: list[str]) -> list[str]:
    if not specials:
        return [text]
    alternation = "|".join(regex.escape(s) for s in sorted(set(specials), key=len, reverse=True))
    return [p for p in regex.split(f"(?:{alternation})", text) if p]


def train_naive(
    text: str, vocab_size: int, specials: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    vocab = {i: bytes([i]) for i in range(256)}
    for s in dict.fromkeys(specials):
        vocab[len(vocab)] = s.encode("utf-8")
    words: Counter[tuple[bytes, ...]] = Counter()
    for piece in _pieces(text, specials):
        for token in regex.findall(GPT2_PATTERN, piece):
            words[tuple(bytes([b]) for b in token.encode("utf-8"))] += 1
    merges: list[tuple[bytes, bytes]] = []
    while len(vocab) < vocab_size:
        pairs: Counter[tuple[bytes, bytes]] = Counter()
        for word, count in words.items():
            for pair in itertools.pairwise(word):
                pairs[pair] += count
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        merged = best[0] + best[1]
        new_words: Counter[tuple[bytes, ...]] = Counter()
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_words[tuple(out)] += count
        words = new_words
        merges.append(best)
        vocab[len(vocab)] = merged
    return vocab, merges
