"""Exact BPE of a long pre-token without replaying its merges one by one.

The merge loop spends about a microsecond per merge, and a Chinese pre-token
(a whole clause: 30 bytes or more) needs 20-30 merges. The answer, though,
is usually just two or three long tokens that the text has used before.
This module finds them directly, from a property of BPE:

    A sequence of tokens is *the* BPE encoding of its bytes if and only if
    every token encodes to itself alone ("proper") and every adjacent pair
    of tokens encodes to itself ("compatible"): BPE of the pair's bytes
    gives exactly those two tokens.

(Replaying merges in rank order, a merge can only cross a junction between
two final tokens if it would also cross it in that pair alone; and tokens
only ever grow, so a crossing can never be undone.) The search walks the
bytes left to right, tries the longest proper token first, and backs up
when no candidate is compatible with the token before it. Whatever it
returns satisfies the property, so it is exact whatever path the search
took; when it gives up (a step budget), the caller falls back to the merge
loop.

Whether two tokens are compatible needs no encoding either. While a token
is being built, its rightmost piece runs down its "right spine" (the right
part, the right part of that, ..., a byte), each piece alive between the
rank that made it and the rank that made its parent. A merge crosses the
junction between ``t1`` and ``t2`` exactly when a piece ``x`` of t1's right
spine and a piece ``y`` of t2's left spine are alive together at the rank
of the merge ``(x, y)``.

All of this assumes the textbook merge list that trainers produce: each
merge joins single bytes or tokens made by earlier merges, and no token is
made twice. For such lists, merging the lowest-ranked pair first equals
replaying every merge in order. ``PairSearch.build`` returns None for any
other list, and the tokenizer keeps its merge loop.
"""

from __future__ import annotations

_ALWAYS = 1 << 62  # "alive until the end": above every rank
_SHORT = (3, 2, 1)  # token lengths tried everywhere
_COMPAT_CACHE = 1 << 18  # (token, token) pairs; bounds memory on endless streams


class PairSearch:
    """BPE of one pre-token's bytes by search; see the module docstring."""

    def __init__(
        self,
        made: dict[int, tuple[int, int, int]],
        tokens: dict[bytes, int],
        pair_rank: dict[tuple[int, int], int],
    ) -> None:
        self._made = made  # merged id -> (rank, left id, right id)
        self._pair_rank = pair_rank
        self._tokens = tokens  # the bytes of every token BPE can output -> its id
        # The lengths, longest first, of the tokens that start with each
        # three bytes: where the text starts with those, only these lengths
        # (then 3, 2, 1) can be a token.
        longer: dict[bytes, set[int]] = {}
        for raw in tokens:
            if len(raw) > 3:
                longer.setdefault(raw[:3], set()).add(len(raw))
        self._lengths = {
            key: tuple(sorted(lengths, reverse=True)) + _SHORT for key, lengths in longer.items()
        }
        self._proper: dict[int, bool] = {i: True for i in tokens.values() if i not in made}
        self._compatible: dict[tuple[int, int], bool] = {}
        self._spines: dict[tuple[int, int], tuple[list[int], list[int], list[int]]] = {}

    @classmethod
    def build(
        cls,
        ranks: dict[tuple[int, int], tuple[int, int]],
        byte_ids: list[int | None],
        vocab: dict[int, bytes],
        pair_rank: dict[tuple[int, int], int],
    ) -> PairSearch | None:
        """A search for the merges ``ranks`` ((left, right) -> (rank, merged), rank order); None if untidy."""
        singles = {i for i in byte_ids if i is not None}
        made: dict[int, tuple[int, int, int]] = {}
        for (left, right), (rank, merged) in ranks.items():
            for part in (left, right):
                if part not in singles and part not in made:
                    return None  # uses a token no earlier merge made
            if merged in made or merged in singles:
                return None  # a token made twice
            made[merged] = (rank, left, right)
        tokens = {vocab[i]: i for i in singles} | {vocab[i]: i for i in made}
        return cls(made, tokens, pair_rank)

    def encode(self, raw: bytes) -> list[int] | None:
        """The BPE token ids of ``raw``, or None if the search gave up."""
        proper, compatible = self._proper, self._compatible
        whole = self._tokens.get(raw)
        if whole is not None:  # often a whole pre-token is one token: no search needed
            ok = proper.get(whole)
            if ok or (ok is None and self._is_proper(whole)):
                return [whole]
        n = len(raw)
        get, lengths_at = self._tokens.get, self._lengths.get
        out: list[int] = []
        # For each token in ``out``: where it starts, the lengths a token
        # could have there, and how many of them were tried, so that backing
        # up can go on with the next shorter one.
        stack: list[tuple[int, tuple[int, ...], int]] = []
        pos, lengths, k = 0, lengths_at(raw[:3], _SHORT), 0
        budget = 2 * n + 16  # back-ups; natural text needs a handful
        while True:
            if k == len(lengths):  # nothing fits after out[-1]: back up
                if not out or budget == 0:
                    return None
                budget -= 1
                out.pop()
                pos, lengths, k = stack.pop()
                continue
            end = pos + lengths[k]
            k += 1
            t = get(raw[pos:end]) if end <= n else None
            if t is None:
                continue
            ok = proper.get(t)
            if ok is None:
                ok = self._is_proper(t)
            if ok and out:
                ok = compatible.get((out[-1], t))
                if ok is None:
                    ok = self._check_pair(out[-1], t)
            if not ok:
                continue
            out.append(t)
            if end == n:
                return out
            stack.append((pos, lengths, k))
            pos, lengths, k = end, lengths_at(raw[end : end + 3], _SHORT), 0

    def _check_pair(self, t1: int, t2: int) -> bool:
        if len(self._compatible) >= _COMPAT_CACHE:
            self._compatible.clear()
        ok = self._compatible[(t1, t2)] = not self._crosses(t1, t2, _ALWAYS)
        return ok

    def _is_proper(self, token: int) -> bool:
        """Does BPE of the token's own bytes give the token? Its two parts must, and must not cross."""
        todo = [token]
        while todo:
            t = todo[-1]
            rank, left, right = self._made[t]
            left_ok, right_ok = self._proper.get(left), self._proper.get(right)
            if left_ok is None:
                todo.append(left)
            elif right_ok is None:
                todo.append(right)
            else:
                # Crossing merges only count before ``rank``, when t itself is made.
                self._proper[t] = left_ok and right_ok and not self._crosses(left, right, rank)
                todo.pop()
        return self._proper[token]

    def _spine(self, token: int, side: int) -> tuple[list[int], list[int], list[int]]:
        """The pieces along one edge of ``token``, bottom up, with the ranks they live between.

        ``side`` indexes the (rank, left, right) triple: 2 follows right parts
        (the right spine), 1 follows left parts (the left spine). A piece is
        made at its own rank (-1 for a byte: it exists from the start) and
        consumed at its parent's; the token itself lives on.
        """
        spine = self._spines.get((token, side))
        if spine is None:
            pieces, born = [], []
            t = token
            while t in self._made:
                info = self._made[t]
                pieces.append(t)
                born.append(info[0])
                t = info[side]
            pieces.append(t)
            born.append(-1)
            pieces.reverse()
            born.reverse()
            spine = self._spines[(token, side)] = (pieces, born, born[1:] + [_ALWAYS])
        return spine

    def _crosses(self, t1: int, t2: int, until: int) -> bool:
        """Would a merge ranked below ``until`` join a piece of t1 to a piece of t2?

        Walking t1's right spine and t2's left spine in rank order visits
        every pair of pieces (x, y) alive at the same time. The merge (x, y)
        at rank r crosses if both exist at r (made before it) and x is not
        consumed at r. y may be: at rank r the left-to-right pass reaches
        the junction before y's own pair.
        """
        xs, x_born, x_dies = self._spine(t1, 2)
        ys, y_born, y_dies = self._spine(t2, 1)
        get = self._pair_rank.get
        nx, ny = len(xs), len(ys)
        i = j = 0
        while i < nx and j < ny:
            r = get((xs[i], ys[j]))
            if r is not None and r < until and x_born[i] < r < x_dies[i] and y_born[j] < r <= y_dies[j]:
                return True
            if x_dies[i] <= y_dies[j]:
                i += 1
            else:
                j += 1
        return False
