"""Part 2: train a byte-level BPE tokenizer on a text file.

Pipeline: read the file (strict UTF-8) -> cut out special tokens -> cut the
rest into GPT-2 pre-tokens -> count distinct pre-tokens -> merge the most
frequent byte pair until the vocabulary is full. Counting distinct
pre-tokens first is what makes this fast: a corpus of millions of words has
only tens of thousands of distinct ones, and merges are learned on those.

``train_bpe`` comes first, then its two steps: counting pre-tokens
(``_count_pretokens``) and learning merges (``_learn_merges``). This module
is the whole answer to Part 2 and needs nothing else of the package but
``pretokenize``.
"""

import heapq
import itertools
import os
from collections import Counter, defaultdict
from collections.abc import Iterator

from .pretokenize import _compile_specials, pretokenize


def train_bpe(
    input_path: str | os.PathLike, vocab_size: int, special_tokens: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train byte-level BPE on the UTF-8 file ``input_path``.

    Returns ``(vocab, merges)``: ids 0-255 are the single bytes, then the
    special tokens (duplicates ignored, UTF-8 encoded) in the order given,
    then one id per merge in the order merges were learned. Ties between
    equally frequent pairs go to the lexicographically greater pair.

    >>> # vocab, merges = train_bpe("corpus.txt", 1000, ["<|endoftext|>"])
    """
    specials = _check_args(vocab_size, special_tokens)
    vocab = _first_vocab(specials)
    word_counts = _count_pretokens(input_path, specials)
    merges = _learn_merges(word_counts, vocab, vocab_size - len(vocab))
    return vocab, merges


def _first_vocab(specials: list[str]) -> dict[int, bytes]:
    """Ids 0-255 for the single bytes, then one id per special token, in the order given."""
    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    for tok in specials:
        vocab[len(vocab)] = tok.encode("utf-8")
    return vocab


def _check_args(vocab_size: object, special_tokens: object) -> list[str]:
    """The special tokens, repeats dropped; a wrong argument fails here, before the file is read."""
    if special_tokens is None:
        special_tokens = []
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a list of str, not a single str")
    specials: list[str] = []
    for tok in special_tokens:
        if not isinstance(tok, str):
            raise TypeError(f"special tokens must be str, got {type(tok).__name__}")
        if tok == "":
            raise ValueError("a special token cannot be the empty string")
        if tok not in specials:
            specials.append(tok)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    if vocab_size < 256 + len(specials):
        raise ValueError(
            f"vocab_size={vocab_size} is too small: it needs one id per byte (256)"
            f" and one per special token ({len(specials)})"
        )
    return specials


# -- step 1: count the pre-tokens ---------------------------------------------


def _count_pretokens(path: str | os.PathLike, specials: list[str]) -> dict[bytes, int]:
    """Return ``{pre-token as UTF-8 bytes: frequency}`` for the file at ``path``.

    Only *distinct* pre-tokens and their frequencies matter to training, so
    the file is reduced to this table.
    """
    counts = _count_text(_read_utf8(path), specials)
    return {tok.encode("utf-8"): n for tok, n in counts.items()}


def _count_text(text: str, specials: list[str]) -> Counter:
    """Count the pre-tokens of ``text`` (special tokens are dropped).

    Counting needs the text between special tokens, not the tokens, so the
    pattern's ``split`` (one C call) replaces building every piece in order.
    ``Counter.update`` counts a list in C; strings are turned into bytes only
    once per distinct pre-token, later.
    """
    counts: Counter = Counter()
    special_re = _compile_specials(specials)
    for piece in special_re.split(text) if special_re is not None else [text]:
        counts.update(pretokenize(piece))
    return counts


def _read_utf8(path: str | os.PathLike) -> str:
    """Return the whole file decoded as UTF-8, bytes exactly as stored.

    Opening in text mode would translate "\\r\\n" to "\\n" and silently change
    what BPE learns, so the file is read as bytes and decoded strictly.
    A missing file raises FileNotFoundError (from ``open``, whose message
    names the path); bad UTF-8 raises ValueError naming the path and the
    offset of the first bad byte, so a student with ten corpora knows which
    one is broken.
    """
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{os.fspath(path)}: not valid UTF-8 at byte {e.start} ({e.reason})") from None


# -- step 2: learn the merges -------------------------------------------------


def _learn_merges(
    word_counts: dict[bytes, int], vocab: dict[int, bytes], num_merges: int
) -> list[tuple[bytes, bytes]]:
    """Learn up to ``num_merges`` merges; new tokens are added to ``vocab``."""
    return list(_iter_merges(word_counts, vocab, num_merges))


def _iter_merges(
    word_counts: dict[bytes, int], vocab: dict[int, bytes], num_merges: int
) -> Iterator[tuple[bytes, bytes]]:
    """Yield up to ``num_merges`` merges as they are learned; new tokens are added to ``vocab``.

    ``word_counts`` maps each distinct pre-token (as UTF-8 bytes) to its
    frequency; ``vocab`` must already hold ids 0..255 for single bytes (id ==
    byte value) and the special tokens. Stops early when no pair is left.
    One merge at a time lets a caller watch the work (a progress bar).

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

    learned = 0
    next_id = max(vocab) + 1
    while learned < num_merges and heap:
        neg, _, _, a, b = heapq.heappop(heap)
        if counts.get((a, b), 0) != -neg:
            continue  # stale entry: the count changed after it was pushed
        token = vocab[a] + vocab[b]
        vocab[next_id] = token
        learned += 1
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
        yield vocab[a], vocab[b]


def _desc_key(token: bytes) -> tuple[int, ...]:
    """A key that sorts tokens in reverse byte order, so the heap's smallest is the greatest pair.

    Ties go to the lexicographically *greater* pair of byte strings, but
    heapq pops the smallest entry. So each token gets 255 minus each byte,
    followed by a sentinel 256. A longer string that extends a shorter one is
    greater as bytes, and its key is smaller because 255 - byte (<= 255)
    sorts before the sentinel. (Values 0..256 are also ints that CPython
    shares rather than allocates, so keys are small.)
    """
    return tuple(255 - b for b in token) + (256,)


def _merge_everywhere(words, freqs, word_ids, a, b, new_id, where) -> dict[tuple[int, int], int]:
    """Replace every ``a b`` by ``new_id`` in the listed words; return how each pair's count changed.

    Each merge at position j changes only three pairs: ``(a, b)`` itself
    disappears, ``(left, a)`` becomes ``(left, new)`` and ``(b, right)``
    becomes ``(new, right)``. Because the word is edited in place, ``left``
    is already the merged token when two merges are adjacent ("a b a b"):
    the first merge turns ``(b, a)`` into ``(new, a)``, the second turns that
    into ``(new, new)``, and the counts come out exact.

    Speed: a 10 000-merge run rewrites about a million words, so this loop is
    written for CPython: words are lists merged in place (``del`` shifts a
    few pointers in C), the next candidate is found with ``list.index`` (a C
    scan) rather than a Python loop over every token, and the changes are
    summed in a small dict of their own: one update per changed pair instead
    of an update of ``counts`` plus a record of what changed.
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
