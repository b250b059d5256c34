"""The heart of training: merge the most frequent byte pair, repeatedly.

Recounting every pair after every merge is O(corpus) per step. Instead we
keep, across steps:

* ``counts``: pair -> how often it occurs, weighted by pre-token frequency;
* ``where``: pair -> indices of the distinct pre-tokens that may contain it,
  so a merge only revisits the few words it touches. These are lists, not
  sets: a list costs 8 bytes an entry, a set about 40, and on a large corpus
  they are most of the memory. Duplicates are removed when a list is used,
  and the list of a pair that has died (count 0) is dropped;
* a heap of ``(-count, key(a), key(b), a, b)`` so the best pair is found in
  O(log n). Entries are never updated in place: when a count changes we
  push a fresh entry, and a popped entry whose count is out of date is
  simply skipped ("lazy deletion").

Ties go to the lexicographically *greater* pair of byte strings. heapq pops
the smallest entry, so each token gets a key that sorts in reverse byte
order: 255 minus each byte, followed by a sentinel 256. A longer string
that extends a shorter one is greater as bytes, and its key is smaller
because 255 - byte (<= 255) sorts before the sentinel. (Values 0..256 are
also ints that CPython shares rather than allocates, so keys are small.)

Speed: a 10 000-merge run rewrites about a million words, so the per-word
work below is written for CPython: words are lists merged in place (``del``
shifts a few pointers in C), the next candidate is found with
``list.index`` (a C scan) rather than a Python loop over every token, and
only the three pairs around each merge are counted again, straight into one
dict of changes, instead of comparing old and new windows of the word.
"""

import heapq
import itertools
from collections import defaultdict

from ._progress import progress


def _desc_key(token: bytes) -> tuple[int, ...]:
    return tuple(255 - b for b in token) + (256,)


def learn_merges(
    word_counts: dict[bytes, int], vocab: dict[int, bytes], num_merges: int, *, large: bool = False
) -> list[tuple[bytes, bytes]]:
    """Learn up to ``num_merges`` merges; new tokens are added to ``vocab``.

    ``word_counts`` maps each distinct pre-token (as UTF-8 bytes) to its
    frequency; ``vocab`` must already hold ids 0..255 for single bytes (id ==
    byte value) and the special tokens. Stops early when no pair is left.
    ``large`` allows a progress bar (on a terminal only).
    """
    words: list[list[int]] = []
    freqs: list[int] = []
    for word, freq in word_counts.items():
        if len(word) > 1:  # a single byte has no pair to merge
            words.append(list(word))
            freqs.append(freq)

    counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], list[int]] = defaultdict(list)
    for wi, word in enumerate(words):
        f = freqs[wi]
        for pair in itertools.pairwise(word):
            counts[pair] += f
            where[pair].append(wi)

    keys = {i: _desc_key(tok) for i, tok in vocab.items()}
    # Pairs are identified by their bytes: should two merges ever spell the same
    # token (("a", "bc") and ("ab", "c")), words keep using the first id for it.
    id_of = {vocab[i]: i for i in range(256)}
    heap = [(-c, keys[a], keys[b], a, b) for (a, b), c in counts.items()]
    heapq.heapify(heap)

    merges: list[tuple[bytes, bytes]] = []
    bar = progress("merging", num_merges, large=large, unit=" merges")
    next_id = max(vocab) + 1
    while len(merges) < num_merges and heap:
        neg, _, _, a, b = heapq.heappop(heap)
        if counts.get((a, b), 0) != -neg:
            continue  # stale entry: the count changed after it was pushed
        token = vocab[a] + vocab[b]
        vocab[next_id] = token
        merges.append((vocab[a], vocab[b]))
        bar.advance(1)
        new_id = id_of.setdefault(token, next_id)
        keys[new_id] = _desc_key(token)
        next_id += 1

        holders = set(where.pop((a, b), ()))
        changes = _merge_everywhere(words, freqs, holders, a, b, new_id, where)
        for pair, change in changes.items():
            c = counts.get(pair, 0) + change
            if c > 0:
                if change:
                    counts[pair] = c
                    heapq.heappush(heap, (-c, keys[pair[0]], keys[pair[1]], pair[0], pair[1]))
            else:
                counts.pop(pair, None)
                where.pop(pair, None)
    bar.close()
    return merges


def _merge_everywhere(words, freqs, word_ids, a, b, new_id, where) -> dict[tuple[int, int], int]:
    """Replace every ``a b`` by ``new_id`` in the listed words; return how each pair's count changed.

    Each merge at position j changes only three pairs: ``(a, b)`` itself
    disappears, ``(left, a)`` becomes ``(left, new)`` and ``(b, right)``
    becomes ``(new, right)``. Because the word is edited in place, ``left``
    is already the merged token when two merges are adjacent ("a b a b"):
    the first merge turns ``(b, a)`` into ``(new, a)``, the second turns that
    into ``(new, new)``, and the counts come out exact.

    Changes are summed in a small dict of their own: one update per changed
    pair instead of an update of ``counts`` plus a record of what changed.
    """
    pair = (a, b)
    changes: dict[tuple[int, int], int] = defaultdict(int)
    for wi in word_ids:
        word = words[wi]  # a list, edited in place
        f = freqs[wi]
        j = -1
        # Counting first lets list.index find each ``a`` without ever failing:
        # a failed search raises an exception, which is slow in a hot loop.
        left_to_find = word.count(a)
        while left_to_find:
            j = word.index(a, j + 1)
            left_to_find -= 1
            if j + 1 == len(word) or word[j + 1] != b:
                continue
            word[j] = new_id
            del word[j + 1]
            if a == b:
                left_to_find -= 1  # the ``b`` just merged away was an ``a`` too
            changes[pair] -= f
            if j:
                left = word[j - 1]
                changes[left, a] -= f
                new = (left, new_id)
                changes[new] += f
                where[new].append(wi)
            if j + 1 < len(word):
                right = word[j + 1]
                changes[b, right] -= f
                new = (new_id, right)
                changes[new] += f
                where[new].append(wi)
    return changes
