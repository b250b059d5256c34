"""The heart of training: merge the most frequent byte pair, repeatedly.

Recounting every pair after every merge is O(corpus) per step. Instead we
keep, across steps:

* ``counts``: pair -> how often it occurs, weighted by pre-token frequency;
* ``where``: pair -> indices of the distinct pre-tokens that may contain it,
  so a merge only revisits the few words it touches;
* a heap of ``(-count, key(a), key(b), a, b)`` so the best pair is found in
  O(log n). Entries are never updated in place: when a count changes we
  push a fresh entry, and a popped entry whose count is out of date is
  simply skipped ("lazy deletion").

Ties go to the lexicographically *greater* pair of byte strings. heapq pops
the smallest entry, so each token gets a key that sorts in reverse byte
order: the negated byte values followed by a sentinel 1. A longer string
that extends a shorter one is greater as bytes, and its key is smaller
because a negated byte (<= 0) sorts before the sentinel.
"""

import heapq
from collections import defaultdict

from ._progress import progress


def _desc_key(token: bytes) -> tuple[int, ...]:
    return tuple(-b for b in token) + (1,)


def _merge_word(word: tuple[int, ...], a: int, b: int, new_id: int):
    """Merge every (a, b) in ``word``; also return the pairs that vanished and appeared.

    Only pairs next to a merge change, so instead of recounting the word we
    compare small windows: each maximal run of merges together with its
    unchanged left and right neighbours. Returns None if nothing merged.
    """
    n = len(word)
    out: list[int] = []
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    i = 0  # old tokens before i are already in ``out``
    while True:
        try:
            j = word.index(a, i)
        except ValueError:
            break
        if j + 1 >= n:
            break
        if word[j + 1] != b:
            out.extend(word[i : j + 1])
            i = j + 1
            continue
        out.extend(word[i:j])
        e = j
        while e + 1 < n and word[e] == a and word[e + 1] == b:
            e += 2
        runs = (e - j) // 2
        out.extend([new_id] * runs)
        old_window = word[max(j - 1, 0) : e + 1]
        new_window = word[max(j - 1, 0) : j] + (new_id,) * runs + word[e : e + 1]
        removed.extend(zip(old_window, old_window[1:]))
        added.extend(zip(new_window, new_window[1:]))
        i = e
    if not removed:
        return None
    out.extend(word[i:])
    return tuple(out), removed, added


def learn_merges(
    word_counts: dict[bytes, int], vocab: dict[int, bytes], num_merges: int, *, large: bool = False
) -> list[tuple[bytes, bytes]]:
    """Learn up to ``num_merges`` merges; new tokens are added to ``vocab``.

    ``word_counts`` maps each distinct pre-token (as UTF-8 bytes) to its
    frequency; ``vocab`` must already hold ids 0..255 for single bytes (id ==
    byte value) and the special tokens. Stops early when no pair is left.
    ``large`` allows a progress bar (on a terminal only).
    """
    words: list[tuple[int, ...]] = []
    freqs: list[int] = []
    for word, freq in word_counts.items():
        if len(word) > 1:  # a single byte has no pair to merge
            words.append(tuple(word))
            freqs.append(freq)

    counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    for wi, word in enumerate(words):
        f = freqs[wi]
        for pair in zip(word, word[1:]):
            counts[pair] += f
            where[pair].add(wi)

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

        touched: set[tuple[int, int]] = set()
        for wi in where.pop((a, b), ()):
            merged = _merge_word(words[wi], a, b, new_id)
            if merged is None:
                continue  # this word no longer holds the pair
            words[wi], removed, added = merged
            f = freqs[wi]
            for pair in removed:
                counts[pair] -= f
            for pair in added:
                counts[pair] += f
                where[pair].add(wi)
            touched.update(removed)
            touched.update(added)
        for pair in touched:
            c = counts[pair]
            if c > 0:
                heapq.heappush(heap, (-c, keys[pair[0]], keys[pair[1]], pair[0], pair[1]))
            else:
                del counts[pair]
    bar.close()
    return merges
