"""An incremental trainer whose index of the words holding each pair can be made to miss some.

A fast trainer keeps, per pair, the words that may hold it (`where`), and merges a pair only in
those words. Forgetting to list a word under a pair that a merge creates is a classic mistake: the
pair is later merged in some words only, so its count stays behind and the merges go wrong in ways
no tie-break or count explains. `make fixtures` stores the merges of each such mistake
(grader/oracles/wrong_rules.py), so that a student's merges that are exactly those name it.

The algorithm is the usual one (counts, `where`, a heap with lazy deletion, each merge rewriting
the listed words in place), so that its wrong variants give the merges such a trainer gives.
`missing_right`: the pair of a new token and its right neighbour is not listed (the mistake);
without it, the trainer is correct.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, defaultdict


def _desc(token: bytes) -> tuple[int, ...]:
    """Sorts tokens in reverse byte order: the heap's smallest entry is the greatest pair."""
    return tuple(255 - b for b in token) + (256,)


def indexed_merges(
    counts_by_word: Counter, limit: int, missing_right: bool = False
) -> list[tuple[bytes, bytes]]:
    """Up to `limit` merges learned from pre-token counts (bytes -> count)."""
    words = [[bytes([b]) for b in w] for w in counts_by_word if len(w) > 1]
    freqs = [f for w, f in counts_by_word.items() if len(w) > 1]
    counts: dict[tuple[bytes, bytes], int] = defaultdict(int)
    where: dict[tuple[bytes, bytes], list[int]] = defaultdict(list)
    for wi, word in enumerate(words):
        for pair in itertools.pairwise(word):
            counts[pair] += freqs[wi]
            where[pair].append(wi)
    heap = [(-c, _desc(a), _desc(b), a, b) for (a, b), c in counts.items()]
    heapq.heapify(heap)
    merges: list[tuple[bytes, bytes]] = []
    while len(merges) < limit and heap:
        neg, _, _, a, b = heapq.heappop(heap)
        if counts.get((a, b), 0) != -neg:
            continue  # stale entry
        merges.append((a, b))
        holders = set(where.pop((a, b), ()))
        for pair, change in _merge_in(words, freqs, holders, a, b, where, missing_right).items():
            c = counts.get(pair, 0) + change
            if c > 0:
                if change:
                    counts[pair] = c
                    heapq.heappush(heap, (-c, _desc(pair[0]), _desc(pair[1]), pair[0], pair[1]))
            else:
                counts.pop(pair, None)
                where.pop(pair, None)
    return merges


def _merge_in(
    words: list[list[bytes]],
    freqs: list[int],
    holders: set[int],
    a: bytes,
    b: bytes,
    where: dict[tuple[bytes, bytes], list[int]],
    missing_right: bool,
) -> dict:
    """Merge every `a b` in the listed words, left to right, each word edited in place; return how
    each pair's count changed, and list the words under the new pairs (not the right one when
    `missing_right`)."""
    new = a + b
    changes: dict[tuple[bytes, bytes], int] = defaultdict(int)
    for wi in holders:
        word, f, j = words[wi], freqs[wi], 0
        while j < len(word) - 1:
            if word[j] != a or word[j + 1] != b:
                j += 1
                continue
            word[j] = new
            del word[j + 1]
            changes[a, b] -= f
            if j:
                left = word[j - 1]
                changes[left, a] -= f
                changes[left, new] += f
                where[left, new].append(wi)
            if j + 1 < len(word):
                right = word[j + 1]
                changes[b, right] -= f
                changes[new, right] += f
                if not missing_right:
                    where[new, right].append(wi)
            j += 1
    return changes
