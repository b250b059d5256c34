"""Pre-tokenization: cut text into pieces that BPE merges never cross (Parts 2 and 3).

BPE on a whole document would happily learn tokens such as "dog." or "the cat", wasting vocabulary
on accidents of punctuation and spacing. So before counting pairs we cut the text into
*pre-tokens* (roughly: words with their leading space, numbers, runs of punctuation, whitespace)
and only ever merge inside one pre-token.

Special tokens such as "<|endoftext|>" are cut out even earlier: they are never pre-tokenized,
never merged, and no merge may run across them.
"""

from __future__ import annotations

from collections.abc import Iterable

# GPT-2's pre-tokenization pattern (given). Read it as six alternatives, tried left to right:
#   '(?:[sdmt]|ll|ve|re)   English contractions: 's 'd 'm 't 'll 've 're
#    ?\p{L}+               a run of letters, with at most one leading space: " world"
#    ?\p{N}+               a run of number characters (digits in any script, ², ½...), with at
#                          most one leading space: " 42"
#    ?[^\s\p{L}\p{N}]+     a run of other symbols (punctuation, emoji...), one optional space: " !!"
#   \s+(?!\S)              whitespace, but not the last space before a word: that one is left
#                          for the next word, so "a  b" gives "a", " ", " b"
#   \s+                    the one leftover whitespace character before a non-space, e.g. the
#                          second "\n" in "hi\n\nthere"
# It needs the third-party `regex` module: the standard `re` does not know \p{L} and \p{N}.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def split_on_special_tokens(text: str, special_tokens: Iterable[str]) -> list[str]:
    """Cut `text` into pieces so that every special-token occurrence is a piece of its own.

    Args:
        text: any string.
        special_tokens: the special tokens, e.g. ["<|endoftext|>"]; may be empty.

    Returns:
        The pieces, in order, with no empty strings, such that "".join(pieces) == text.
        A piece is either exactly one special token or ordinary text containing none.

    Special tokens match literally (a "|" is just a "|", not regex "or") and exactly, letter case
    included: with "<|endoftext|>" special, "<|ENDOFTEXT|>" and "<|endoftext|" are ordinary text.
    When two special tokens could match at the same place, the LONGER one wins: with "<|a|>" and
    "<|a|><|a|>" both special, "<|a|><|a|>" is one piece, not two.

    >>> split_on_special_tokens("one<|endoftext|>two", ["<|endoftext|>"])
    ['one', '<|endoftext|>', 'two']
    >>> split_on_special_tokens("<|endoftext|><|endoftext|>", ["<|endoftext|>"])
    ['<|endoftext|>', '<|endoftext|>']
    >>> split_on_special_tokens("x<|a|><|a|>y", ["<|a|>", "<|a|><|a|>"])
    ['x', '<|a|><|a|>', 'y']
    >>> split_on_special_tokens("no specials here", [])
    ['no specials here']

    The grader checks: text with no special token; adjacent specials; overlapping specials
    (longest first); specials containing regex characters ("|", "[", "(", "*"); an incomplete
    special token or one in other letter case (stays ordinary text); the empty string (gives []);
    and that the pieces are never empty and always join back to the text.
    """
    # hint: re.escape each token, sort the tokens by length (longest first), join them with "|"
    #       inside ONE capturing group, and re.split keeps the separators for you.
    raise NotImplementedError("split_on_special_tokens is yours to write (Part 2)")


def pretokenize(text: str) -> list[str]:
    """Cut `text` (which contains no special tokens) into pre-tokens with GPT2_PATTERN.

    Returns every match of GPT2_PATTERN in order; together they cover the whole text, so
    "".join(pretokenize(text)) == text.

    >>> pretokenize("Hello, world!  It's 42.")
    ['Hello', ',', ' world', '!', ' ', ' It', "'s", ' 42', '.']
    >>> pretokenize("a  b")
    ['a', ' ', ' b']

    The pattern is case-sensitive: its contractions are lowercase only, so "I'LL" gives "I", "'",
    "LL". Marks (\\p{M}: Devanagari and Thai vowel signs, the accent of a decomposed "e\\u0301")
    are neither letters nor numbers, so the fourth alternative takes them. Never normalize or
    lowercase the text: every character is cut and encoded as it is.

    The grader checks: agreement with GPT-2's pattern on English with contractions (in upper and
    mixed case too) and digits, runs of spaces, tabs and newlines, "\\r\\n" and lone "\\r", every
    other kind of whitespace ("\\x0b", "\\u00a0", "\\u2028", "\\u3000", ...), superscript digits,
    Chinese, scripts with marks (Devanagari, Thai, Hebrew), Arabic, and emoji (joined by U+200D,
    flags, variation selectors).
    """
    # hint: `import regex` (not `re`) and use regex.findall.
    raise NotImplementedError("pretokenize is yours to write (Part 2)")
