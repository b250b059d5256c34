"""Part 3: a byte-level BPE tokenizer that encodes and decodes text.

Encoding a pre-token merges, at each step, the adjacent pair whose merge was
learned earliest (lowest rank). This gives exactly the result of replaying
all merges in training order, but only looks at pairs that actually occur.
Natural text repeats the same words over and over, so results are cached
per pre-token. Long pre-tokens the cache has not seen (a clause of Chinese
needs 20-30 merges) are found by a search for their final tokens instead
(``_pair_search``), which gives the same answer without replaying merges.
"""

import heapq
import os
from collections.abc import Callable, Iterable, Iterator
from itertools import chain as _chain

from . import _gpt2_files, _pair_search, _specials, _streaming
from .pretokenize import pretokenize

_CACHE_SIZE = 1 << 16  # pre-tokens; bounds memory on endless streams
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
    ranks = [get(pair, _NO_MERGE) for pair in zip(ids, ids[1:])]
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


class _PretokenCache(dict):
    """pre-token -> ids; computes on a miss and forgets the oldest entry when full."""

    def __init__(self, compute: Callable[[str], list[int]]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, pretoken: str) -> list[int]:
        ids = self._compute(pretoken)
        if len(pretoken) > _LONG:
            return ids  # rare, and could be huge: not worth keeping
        if len(self) >= _CACHE_SIZE:
            del self[next(iter(self))]  # dicts keep insertion order: this is the oldest
        self[pretoken] = ids
        return ids


class BPETokenizer:
    """Encode text to token ids and back, given a vocabulary and ordered merges."""

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None = None,
    ) -> None:
        self.vocab: dict[int, bytes] = dict(vocab)
        self.merges: list[tuple[bytes, bytes]] = [(bytes(a), bytes(b)) for a, b in merges]
        if isinstance(special_tokens, str):
            raise TypeError("special_tokens must be a list of str, not a single str")
        self.special_tokens: list[str] = list(dict.fromkeys(special_tokens or []))
        if "" in self.special_tokens:
            raise ValueError("a special token cannot be the empty string")

        self._id_of: dict[bytes, int] = {}
        for i, tok in sorted(self.vocab.items()):
            self._id_of.setdefault(tok, i)  # on duplicates the smallest id wins
        self._special_ids: dict[str, int] = {}
        for tok in self.special_tokens:
            raw = tok.encode("utf-8")
            if raw not in self._id_of:
                new_id = max(self.vocab, default=-1) + 1
                self.vocab[new_id] = raw
                self._id_of[raw] = new_id
            self._special_ids[tok] = self._id_of[raw]
        self._special_re = _specials.compile_specials(self.special_tokens)
        self._max_special_len = max((len(t) for t in self.special_tokens), default=0)

        self._byte_ids = [self._id_of.get(bytes([b])) for b in range(256)]
        # (left id, right id) -> (rank, merged id); the first occurrence of a merge wins.
        self._ranks: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, (a, b) in enumerate(self.merges):
            try:
                key = (self._id_of[a], self._id_of[b])
                merged = self._id_of[a + b]
            except KeyError as e:
                raise ValueError(
                    f"merge {rank} ({a!r}, {b!r}) uses or makes a token missing from the vocab: {e.args[0]!r}"
                ) from None
            self._ranks.setdefault(key, (rank, merged))
        # The same table split in two for the short path: plain int ranks compare fastest.
        self._pair_rank = {pair: rank for pair, (rank, _) in self._ranks.items()}
        self._merged_id = {rank: merged for rank, merged in self._ranks.values()}
        self._search: _pair_search.PairSearch | bool | None = False  # built when first needed
        self._cache = _PretokenCache(self._bpe)

    # -- files ---------------------------------------------------------------

    @classmethod
    def from_files(
        cls,
        vocab_filepath: str | os.PathLike,
        merges_filepath: str | os.PathLike,
        special_tokens: list[str] | None = None,
    ) -> "BPETokenizer":
        """Load GPT-2-format ``vocab.json`` and ``merges.txt``."""
        vocab = _gpt2_files.read_vocab(vocab_filepath)
        merges = _gpt2_files.read_merges(merges_filepath)
        return cls(vocab, merges, special_tokens)

    def save(self, vocab_filepath: str | os.PathLike, merges_filepath: str | os.PathLike) -> None:
        """Write GPT-2-format files that ``from_files`` (and HF tokenizers) can load."""
        _gpt2_files.write_vocab(self.vocab, vocab_filepath)
        _gpt2_files.write_merges(self.merges, merges_filepath)

    # -- encoding ------------------------------------------------------------

    def _bpe(self, pretoken: str) -> list[int]:
        """The ids of one pre-token: what merging its bytes, lowest-ranked pair first, gives."""
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

    def _searcher(self) -> _pair_search.PairSearch | None:
        """The search for long pre-tokens; None for a merge list it cannot serve (see its module)."""
        if self._search is False:  # built on first use: short texts never need it
            self._search = _pair_search.PairSearch.build(self._ranks, self._byte_ids, self.vocab, self._pair_rank)
        return self._search

    def _encode_pretokens(self, pretokens: list[str]) -> Iterator[int]:
        # Cache hits, the common case, stay inside C: dict lookups via map,
        # concatenation via chain. Misses go through _PretokenCache.__missing__.
        return _chain.from_iterable(map(self._cache.__getitem__, pretokens))

    def encode(self, text: str) -> list[int]:
        """Encode ``text``: special tokens become their single id, the rest is BPE-merged.

        >>> # tok.encode("hi<|endoftext|>") == [..ids of "hi"..., id of "<|endoftext|>"]
        """
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        ids: list[int] = []
        for piece in _specials.split_with(text, self._special_re):
            special_id = self._special_ids.get(piece)
            if special_id is not None:
                ids.append(special_id)
            else:
                ids.extend(self._encode_pretokens(pretokenize(piece)))
        return ids

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Lazily encode a stream of strings (e.g. an open file, line by line).

        Yields exactly ``encode("".join(iterable))`` for any chunking, while
        holding only about one pre-token of text at a time.
        """
        for pretokens, special in _streaming.iter_batches(iterable, self._special_re, self._max_special_len):
            yield from self._encode_pretokens(pretokens)
            if special is not None:
                yield self._special_ids[special]

    # -- decoding ------------------------------------------------------------

    def decode(self, ids: list[int]) -> str:
        """Concatenate the tokens' bytes and decode as UTF-8 (bad bytes become U+FFFD)."""
        parts: list[bytes] = []
        vocab = self.vocab
        for i in ids:
            tok = None if isinstance(i, bool) or not isinstance(i, int) else vocab.get(i)
            if tok is None:
                raise ValueError(f"unknown token id {i!r}: not in the vocabulary")
            parts.append(tok)
        return b"".join(parts).decode("utf-8", errors="replace")
