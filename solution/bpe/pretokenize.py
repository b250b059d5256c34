"""Splitting text before BPE: special tokens first, then GPT-2's regex.

BPE never merges across the pieces produced here. Special tokens (such as
``<|endoftext|>``) are cut out first so that they stay whole and no merge
spans a document boundary; the remaining text is cut into "pre-tokens"
(words with their leading space, runs of digits, runs of punctuation,
whitespace) by the regular expression GPT-2 uses.
"""

from collections.abc import Iterable

import regex

from . import _specials

GPT2_PATTERN: str = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

_GPT2_RE = regex.compile(GPT2_PATTERN)


def split_on_special_tokens(text: str, special_tokens: Iterable[str]) -> list[str]:
    """Split ``text`` so that every special-token occurrence is its own piece.

    Specials match literally, the longest first where they overlap. Pieces
    keep their order, empty pieces are dropped and ``"".join(result) == text``.

    >>> split_on_special_tokens("a<|eot|>b", ["<|eot|>"])
    ['a', '<|eot|>', 'b']
    """
    return _specials.split_with(text, _specials.compile_specials(special_tokens))


def pretokenize(text: str) -> list[str]:
    """Cut ``text`` into GPT-2 pre-tokens; ``"".join(result) == text``.

    >>> pretokenize("Hello, world!  ok")
    ['Hello', ',', ' world', '!', ' ', ' ok']
    """
    return _GPT2_RE.findall(text)
