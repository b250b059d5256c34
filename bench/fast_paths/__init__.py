"""How far pure Python goes: the reference with the fast paths it used to have.

The textbook reference (``solution/bpe``) merges every pre-token by rank and
pre-tokenizes with ``regex``. This contender keeps its trainer and its API
and adds, exactly (``tests/kit/bench/fast_paths/test_fast_paths.py`` checks them against
the plain algorithms):

- pre-tokenization in stdlib ``re``, with GPT-2's ``\\p{L}``/``\\p{N}``
  spelled out as character classes read from ``regex`` (``bmp_split``), for
  training and encoding alike;
- for a pre-token of 8 bytes or more, a search for its final tokens instead of
  merging (``pair_search``);
- for a pre-token over 64 bytes, merging with a linked list and a heap of
  (rank, position) instead of rescanning every pair after each merge;
- for short ones, merging in place with the ranks kept in a list.

It runs inside ``bench/worker.py``: ``load()`` imports the reference first.
"""

from __future__ import annotations

import contextlib
import heapq
from itertools import chain, pairwise

import regex

from bench.fast_paths import bmp_split, pair_search

_LONG = 64  # bytes; longer pre-tokens the search cannot serve (runs of spaces, URLs, ...) take the heap path
_SEARCH = 8  # bytes; from this length on, searching for the final tokens beats merging
_NO_MERGE = 1 << 62  # a rank above every real one: "this pair never merges"


def _merge_short(
    ids: list[int], pair_rank: dict[tuple[int, int], int], merged_id: dict[int, int]
) -> list[int]:
    """Lowest-rank-first merging of a short pre-token; edits ``ids`` in place.

    Rescanning every pair with a dict lookup after each merge made cache
    misses (long Chinese pre-tokens make 20 merges or more) cost most of the
    encoding time. Instead, ``ranks[i]`` keeps the rank of the pair at i, the
    best pair is found by ``min`` and ``list.index`` (loops in C), and after a
    merge only the ranks of its two neighbours are looked up again. As in
    the plain algorithm, every occurrence of the best pair is merged, left to
    right, before the next best pair is chosen.
    """
    get = pair_rank.get
    ranks = [get(pair, _NO_MERGE) for pair in pairwise(ids)]
    while ranks:
        best = min(ranks)
        if best == _NO_MERGE:
            break
        new_id = merged_id[best]
        # One pass merges the occurrences there are now, left to right, each
        # searched for to the right of the last merge. Counting them first
        # means a search only fails (raising, which is slow) in a run like
        # "a a a", where a merge swallows the start of the next occurrence.
        start = 0
        for _ in range(ranks.count(best)):
            try:
                i = ranks.index(best, start)
            except ValueError:
                break
            ids[i] = new_id
            del ids[i + 1]
            del ranks[i]
            if i:
                ranks[i - 1] = get((ids[i - 1], new_id), _NO_MERGE)
            if i < len(ranks):
                ranks[i] = get((new_id, ids[i + 1]), _NO_MERGE)
            start = i + 1
    return ids


def _merge_long(ids: list[int], ranks: dict[tuple[int, int], tuple[int, int]]) -> list[int]:
    """Lowest-rank-first merging in O(n log n), for long pre-tokens.

    Rescanning all pairs after each merge costs O(n) per merge, O(n^2) in all:
    minutes for a 100 000-space run. Here tokens form a linked list and the
    candidate merges a heap of (rank, position); ties pop leftmost first,
    exactly like merging left to right. Entries made stale by an earlier
    merge are recognised on pop and skipped. A merge list no trainer makes
    can give a new pair a lower rank than the pair that made it: such pairs
    wait until every occurrence of the current pair is merged, as in
    ``_merge_short``, so both paths always agree.
    """
    n = len(ids)
    tokens: list[int | None] = list(ids)
    nxt = list(range(1, n + 1))  # n means "no next token"
    prv = list(range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        found = ranks.get((ids[i], ids[i + 1]))
        if found is not None:
            heap.append((found[0], i, found[1]))
    heapq.heapify(heap)
    waiting: list[tuple[int, int, int]] = []  # lower-ranked pairs made during the current pass
    current = -1
    while heap or waiting:
        if waiting and (not heap or heap[0][0] > current):
            for entry in waiting:  # the pass over ``current`` is over
                heapq.heappush(heap, entry)
            waiting.clear()
        rank, i, new_id = heapq.heappop(heap)
        j = nxt[i]
        if tokens[i] is None or j >= n or ranks.get((tokens[i], tokens[j])) != (rank, new_id):
            continue  # stale: one side was merged into something else meanwhile
        current = rank
        tokens[i], tokens[j] = new_id, None
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
        for left, right in ((prv[i], i), (i, nxt[i])):
            if left >= 0 and right < n:
                found = ranks.get((tokens[left], tokens[right]))
                if found is not None:
                    entry = (found[0], left, found[1])
                    if found[0] < rank:
                        waiting.append(entry)
                    else:
                        heapq.heappush(heap, entry)
    return [t for t in tokens if t is not None]


def load(bpe):
    """(FastTokenizer, train_bpe, pretokenize) built on the reference package ``bpe``."""
    full = regex.compile(bpe.GPT2_PATTERN)

    def pretokenize(text: str) -> list[str]:
        return bmp_split.findall(text, full)

    class FastTokenizer(bpe.BPETokenizer):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._ranks = {pair: (rank, self._merged_id[rank]) for pair, rank in self._pair_rank.items()}
            self._search: pair_search.PairSearch | bool | None = False  # built when first needed

        def _bpe(self, pretoken: str) -> list[int]:
            raw = pretoken.encode("utf-8")
            if len(raw) >= _SEARCH:
                search = self._searcher()
                found = search.encode(raw) if search else None
                if found is not None:
                    return found
            ids = [self._byte_ids[b] for b in raw]
            if None in ids:
                missing = next(b for b in raw if self._byte_ids[b] is None)
                raise ValueError(f"byte {missing:#04x} has no token in the vocabulary")
            if len(ids) > _LONG:
                return _merge_long(ids, self._ranks)
            return _merge_short(ids, self._pair_rank, self._merged_id)

        def _searcher(self) -> pair_search.PairSearch | None:
            if self._search is False:
                self._search = pair_search.PairSearch.build(
                    self._ranks, self._byte_ids, self.vocab, self._pair_rank
                )
            return self._search

        def encode(self, text: str) -> list[int]:
            ids: list[int] = []
            for piece in bpe.tokenizer._split_with(text, self._special_re):
                special_id = self._special_ids.get(piece)
                if special_id is not None:
                    ids.append(special_id)
                else:
                    ids.extend(chain.from_iterable(map(self._cache.__getitem__, pretokenize(piece))))
            return ids

    def train_bpe(input_path, vocab_size, special_tokens):
        """The reference's trainer, with the fast pre-tokenizer wherever it pre-tokenizes."""
        with contextlib.ExitStack() as stack:
            for module in (bpe.training, bpe.tokenizer):
                stack.enter_context(_swapped(module, "pretokenize", pretokenize))
            return bpe.train_bpe(input_path, vocab_size, special_tokens)

    return FastTokenizer, train_bpe, pretokenize


@contextlib.contextmanager
def _swapped(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)
