"""Part 1: character-level BPE over a str, one list of ids."""
from __future__ import annotations

from collections.abc import Sequence

UNKNOWN = "\ufffd"


def merge(ids: list[int], pair: Sequence[int], new_id: int) -> list[int]:
    """Replace non-overlapping occurrences of `pair`, scanning left to right."""
    a, b = pair[0], pair[1]
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


class CharBPE:
    def __init__(self, vocab: list[str], merges: list) -> None:
        self.vocab = list(vocab)
        self.merges = [[[int(m[0][0]), int(m[0][1])], int(m[1])] for m in merges]

    @classmethod
    def train(cls, text: str, num_merges: int) -> "CharBPE":
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if isinstance(num_merges, bool) or not isinstance(num_merges, int) or num_merges < 0:
            raise ValueError(f"num_merges must be a non-negative int, got {num_merges!r}")
        vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
        index = {s: i for i, s in enumerate(vocab)}
        ids = [index.get(c, 0) for c in text]
        merges: list = []
        for _ in range(num_merges):
            counts: dict[tuple[int, int], int] = {}
            first: dict[tuple[int, int], int] = {}
            for pos in range(len(ids) - 1):
                pair = (ids[pos], ids[pos + 1])
                if "\n" in vocab[pair[0]] + vocab[pair[1]]:
                    continue
                counts[pair] = counts.get(pair, 0) + 1
                first.setdefault(pair, pos)
            if not counts:
                break
            best = min(counts, key=lambda p: (-counts[p], first[p]))
            if counts[best] < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[best[0]] + vocab[best[1]])
            merges.append([[best[0], best[1]], new_id])
            ids = merge(ids, best, new_id)
        return cls(vocab, merges)

    def encode(self, text: str) -> list[int]:
        index = {}
        for i, s in enumerate(self.vocab):
            if len(s) == 1 and s not in index:
                index[s] = i
        ids = [index.get(c, 0) for c in text]
        for (a, b), new_id in self.merges:
            ids = merge(ids, (a, b), new_id)
        return ids

    def decode(self, ids: list[int]) -> str:
        parts = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.vocab):
                raise ValueError(f"unknown token id {i!r}")
            parts.append(self.vocab[i])
        return "".join(parts)

    def state(self) -> dict:
        return {"vocab": list(self.vocab), "merges": [[[a, b], n] for (a, b), n in self.merges]}
