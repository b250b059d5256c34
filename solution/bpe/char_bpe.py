"""Part 1: BPE on characters, small enough to trace by hand.

Before bytes, regexes and heaps, the whole algorithm fits on a page: start
from one id per distinct character, repeatedly count adjacent pairs and give
the most frequent pair a new id. Encoding replays the learned merges in the
order they were learned.
"""

import itertools
from collections import Counter
from collections.abc import Sequence

_UNKNOWN = "\ufffd"  # id 0: stands for any character never seen in training


def merge(ids: list[int], pair: Sequence[int], new_id: int) -> list[int]:
    """Replace each occurrence of ``pair`` in ``ids`` by ``new_id``.

    Scans left to right and never overlaps, so ``[1, 1, 1]`` with pair
    ``(1, 1)`` becomes ``[new_id, 1]``. Returns a new list: ``ids`` is left
    unchanged.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 9)
    [9, 3, 9]
    """
    a, b = pair
    out: list[int] = []
    i, n = 0, len(ids)
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _check_train_args(text: object, num_merges: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if isinstance(num_merges, bool) or not isinstance(num_merges, int) or num_merges < 0:
        raise ValueError(f"num_merges must be a non-negative int, got {num_merges!r}")


class CharBPE:
    """A character-level BPE model: a vocabulary of strings plus ordered merges."""

    def __init__(self, vocab: list[str], merges: list) -> None:
        self.vocab: list[str] = list(vocab)
        # Normalise to [[a, b], new_id] lists so a JSON round trip changes nothing.
        self.merges: list = [[[int(a), int(b)], int(new_id)] for (a, b), new_id in merges]
        self._char_to_id = {s: i for i, s in enumerate(self.vocab) if len(s) == 1}

    @classmethod
    def train(cls, text: str, num_merges: int) -> "CharBPE":
        """Learn up to ``num_merges`` merges from ``text``.

        Each step counts adjacent pairs of the current sequence, skipping
        pairs whose joined string contains a newline; the most frequent wins
        and ties go to the pair seen first. Training stops early when no
        pair occurs at least twice (merging a one-off pair teaches nothing).

        >>> t = CharBPE.train("low lower lowest", 4)
        >>> [t.vocab[new] for _, new in t.merges]
        ['lo', 'low', ' low', ' lowe']
        """
        _check_train_args(text, num_merges)
        vocab = [_UNKNOWN] + sorted(set(text) - {_UNKNOWN})
        char_to_id = {c: i for i, c in enumerate(vocab)}
        ids = [char_to_id[c] for c in text]
        merges: list = []
        for _ in range(num_merges):
            # Counter keeps first-insertion order and max() returns the first
            # maximum, so ties resolve to the earliest first occurrence.
            counts = Counter(p for p in itertools.pairwise(ids) if "\n" not in vocab[p[0]] + vocab[p[1]])
            if not counts:
                break
            pair, count = max(counts.items(), key=lambda kv: kv[1])
            if count < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            ids = merge(ids, pair, new_id)
        return cls(vocab, merges)

    def encode(self, text: str) -> list[int]:
        """Map characters to ids (unknown -> 0), then replay every merge in order."""
        ids = [self._char_to_id.get(c, 0) for c in text]
        for pair, new_id in self.merges:
            if len(ids) < 2:
                break
            ids = merge(ids, pair, new_id)
        return ids

    def decode(self, ids: list[int]) -> str:
        """Join the vocabulary strings of ``ids``; an unknown id is a ValueError."""
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.vocab):
                raise ValueError(f"unknown token id {i!r} (the vocabulary has {len(self.vocab)} ids)")
            out.append(self.vocab[i])
        return "".join(out)

    def state(self) -> dict:
        """A JSON-able snapshot: ``CharBPE(**state)`` rebuilds an identical model."""
        return {"vocab": list(self.vocab), "merges": [[list(p), n] for p, n in self.merges]}
