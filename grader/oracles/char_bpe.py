"""A trusted character-level BPE (Part 1), to compute expected results for generated texts."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

UNKNOWN = "\ufffd"
# A merge(): the contract's, or another one (a student's, to replay their training with it).
Merge = Callable[[list[int], Sequence[int], int], list[int]]


def merge(ids: list[int], pair: Sequence[int], new_id: int) -> list[int]:
    """The contract's merge(): each occurrence of `pair`, left to right, never overlapping."""
    pair = tuple(pair)
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def encode(vocab: list[str], merges: list, text: str, merge: Merge = merge) -> list[int]:
    """The contract's CharBPE.encode: characters to ids (unknown: 0), then every merge in order."""
    ids = [vocab.index(c) if c in vocab else 0 for c in text]
    for pair, new_id in merges:
        if len(ids) < 2:
            break
        ids = merge(ids, pair, new_id)
    return ids


def train(text: str, num_merges: int, merge: Merge = merge) -> tuple[list[str], list]:
    """(vocab, merges) exactly as the contract defines CharBPE.train. `merge`: the contract's, or
    another one (a student's, to replay their training with their own merge())."""
    vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
    ids = [vocab.index(c) for c in text]
    merges = []
    for _ in range(num_merges):
        counts: dict[tuple[int, int], int] = {}
        for pair in itertools.pairwise(ids):
            if "\n" not in vocab[pair[0]] + vocab[pair[1]]:
                counts[pair] = counts.get(pair, 0) + 1
        if not counts or max(counts.values()) < 2:
            break
        best = max(counts, key=counts.get)  # first of equals = earliest first occurrence
        new_id = len(vocab)
        vocab.append(vocab[best[0]] + vocab[best[1]])
        merges.append([list(best), new_id])
        ids = merge(ids, best, new_id)
    return vocab, merges
