"""Part 1: a character-level BPE, the warm-up.

Here the starting alphabet is the characters of the training text, and each merge glues two
adjacent tokens into a new, longer one. Everything you learn here (counting pairs, breaking ties,
replaying merges) carries over to the byte-level version of Part 2, where the alphabet becomes the
256 byte values and no character can ever be unknown.
"""

from __future__ import annotations

from collections.abc import Sequence


def merge(ids: list[int], pair: Sequence[int], new_id: int) -> list[int]:
    """Return a NEW list in which every occurrence of `pair` in `ids` is replaced by `new_id`.

    Scan left to right; occurrences do not overlap, so once two ids are merged the scan continues
    after them. `ids` itself is left unchanged. `pair` has two ids and may be a tuple or a list.

    >>> merge([5, 6, 7, 5, 6], (5, 6), 99)
    [99, 7, 99]
    >>> merge([1, 1, 1], (1, 1), 9)
    [9, 1]
    >>> merge([1, 1, 1, 1], [1, 1], 9)
    [9, 9]
    >>> ids = [1, 2]
    >>> merge(ids, (1, 2), 3), ids  # a new list; the list given is left unchanged
    ([3], [1, 2])
    >>> merge([], (1, 2), 3)
    []

    The grader checks: overlapping runs ([1, 1, 1] above), every occurrence replaced, the order
    inside the pair ((1, 2) does not match [2, 1]), a single id, the empty list, a pair given
    as a list, and that the list given is left unchanged.
    """
    # hint: walk an index i; if ids[i] and ids[i + 1] form the pair, append new_id and jump by 2.
    raise NotImplementedError("merge is yours to write (Part 1)")


class CharBPE:
    """A character-level BPE tokenizer: a vocabulary of strings plus an ordered list of merges.

    Attributes:
        vocab: list[str]; token id i stands for the string vocab[i]. vocab[0] is always "\\ufffd",
            the id every unknown character is mapped to.
        merges: list of [[a, b], new_id], in the order they were learned: tokens a and b
            (ids) merge into new_id, and vocab[new_id] == vocab[a] + vocab[b].
    """

    def __init__(self, vocab: list[str], merges: list) -> None:
        """Keep the vocabulary and the merges (already complete: this constructor learns nothing).

        `CharBPE.train` builds both lists and calls this; so does reloading a saved state:
        `CharBPE(**t.state())` must behave exactly like `t`.
        """
        # You may add more attributes (e.g. a dict from character to id for encode).
        self.vocab = vocab
        self.merges = merges

    @classmethod
    def train(cls, text: str, num_merges: int) -> CharBPE:
        """Learn up to `num_merges` merges from `text` and return the trained tokenizer.

        1. Vocabulary: vocab[0] = "\\ufffd" (the unknown token); then every distinct character of
           `text`, sorted by code point, gets the next id ("\\ufffd" itself is not added twice).
        2. Encode `text` as the list of those character ids.
        3. Repeat `num_merges` times:
             - count every adjacent pair of ids in the current list, but SKIP pairs whose joined
               string contains "\\n" (tokens never grow across a line break);
             - pick the most frequent pair; on a tie, the pair whose FIRST occurrence in the
               current list comes earliest;
             - if that count is below 2, or there is no pair at all, stop early: merging a pair
               seen once teaches nothing. Stopping means leaving the loop at once, whatever
               `num_merges` is: CharBPE.train("abc", 10**9) returns as fast as with 1;
             - new_id = len(vocab); append the joined string to vocab, append [[a, b], new_id]
               to merges, and replace the pair everywhere with `merge`.

        >>> t = CharBPE.train("low lower lowest", 4)
        >>> t.vocab[:9]
        ['\ufffd', ' ', 'e', 'l', 'o', 'r', 's', 't', 'w']
        >>> [t.vocab[new_id] for _, new_id in t.merges]
        ['lo', 'low', ' low', ' lowe']
        >>> t.merges[0]
        [[3, 4], 9]

        In step one, ("l", "o") and ("o", "w") are both seen 3 times; "lo" appears first, so it wins.

        Errors: TypeError if `text` is not a str; ValueError if `num_merges` is not an int >= 0
        (True and False are rejected too, although Python treats them as ints).
        The grader checks: this trace, the "\\n" rule, the tie rule and stopping early (at once,
        with num_merges=10**7), the error cases, and many small random texts (num_merges=0 and ""
        included) against the reference.
        """
        # hint: a dict or collections.Counter of pairs; the first occurrence is the first time you
        #       meet the pair while scanning left to right.
        raise NotImplementedError("CharBPE.train is yours to write (Part 1)")

    def encode(self, text: str) -> list[int]:
        """Turn `text` into token ids: characters to ids (unknown -> 0), then replay every merge.

        Apply the merges in the order they were learned (one `merge` call each), exactly as
        training did.

        >>> t = CharBPE.train("low lower lowest", 4)
        >>> t.encode("low lower lowest")
        [10, 12, 5, 12, 6, 7]
        >>> t.encode("Cat")
        [0, 0, 7]

        The grader checks: the training text, unknown characters, the empty string, and that a
        tokenizer rebuilt from state() encodes exactly like the original.
        """
        raise NotImplementedError("CharBPE.encode is yours to write (Part 1)")

    def decode(self, ids: list[int]) -> str:
        """Turn token ids back into text by joining their vocabulary strings.

        >>> t = CharBPE.train("low lower lowest", 4)
        >>> t.decode([10, 12, 5])
        'low lower'

        Errors: ValueError, naming the id, for an id that is not in the vocabulary
        (negative ids included: vocab[-1] would silently return the last token; an id that is
        not an int, such as True, too: vocab[True] would silently return vocab[1]).
        The grader checks: decode(encode(text)) == text for text made of known characters.
        """
        raise NotImplementedError("CharBPE.decode is yours to write (Part 1)")

    def state(self) -> dict:
        """Return {"vocab": ..., "merges": ...}: plain lists, ready for json.dumps.

        The point: a trained tokenizer can be saved and rebuilt.

        >>> import json
        >>> t = CharBPE.train("low lower lowest", 4)
        >>> again = CharBPE(**json.loads(json.dumps(t.state())))
        >>> again.encode("lowest") == t.encode("lowest")
        True
        """
        raise NotImplementedError("CharBPE.state is yours to write (Part 1)")
