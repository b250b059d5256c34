"""A trusted character-level BPE (Part 1), to compute expected results for generated texts."""

from __future__ import annotations

import itertools

UNKNOWN = "\ufffd"


def train(text: str, num_merges: int) -> tuple[list[str], list]:
    """(vocab, merges) exactly as the contract defines CharBPE.train."""
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
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == best:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return vocab, merges
