"""Splitting text before BPE: special tokens first, then GPT-2's regex.

BPE never merges across the pieces produced here. Special tokens (such as
``<|endoftext|>``) are cut out first so that they stay whole and no merge
spans a document boundary; the remaining text is cut into "pre-tokens"
(words with their leading space, runs of digits, runs of punctuation,
whitespace) by the regular expression GPT-2 uses.

Training and the tokenizer cut out special tokens over and over, so they
compile the pattern once (``_compile_specials``) and split with it
(``_split_with``); ``split_on_special_tokens`` is the two in one call.
"""

from collections.abc import Iterable

import regex

GPT2_PATTERN: str = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

_GPT2_RE = regex.compile(GPT2_PATTERN)


def split_on_special_tokens(text: str, special_tokens: Iterable[str]) -> list[str]:
    """Split ``text`` so that every special-token occurrence is its own piece.

    Specials match literally, the longest first where they overlap. Pieces
    keep their order, empty pieces are dropped and ``"".join(result) == text``.

    >>> split_on_special_tokens("a<|eot|>b", ["<|eot|>"])
    ['a', '<|eot|>', 'b']
    """
    return _split_with(text, _compile_specials(special_tokens))


def pretokenize(text: str) -> list[str]:
    """Cut ``text`` into GPT-2 pre-tokens; ``"".join(result) == text``.

    >>> pretokenize("Hello, world!  ok")
    ['Hello', ',', ' world', '!', ' ', ' ok']
    """
    return _GPT2_RE.findall(text)


def _compile_specials(special_tokens: Iterable[str]) -> "regex.Pattern[str] | None":
    """One pattern matching any of the special tokens; None when there are none.

    Alternatives of a regex are tried left to right, so listing the specials
    longest first makes "<|a|><|b|>" win over its own prefix "<|a|>" wherever
    both could match. Every special is escaped: "<|endoftext|>" contains "|",
    which would otherwise mean "or".
    """
    unique = sorted({t for t in special_tokens if t}, key=lambda t: (-len(t), t))
    if not unique:
        return None
    return regex.compile("|".join(regex.escape(t) for t in unique))


def _split_with(text: str, pattern: "regex.Pattern[str] | None") -> list[str]:
    """Split ``text`` around the matches of ``pattern``, keeping them; empty pieces are dropped."""
    if pattern is None:
        return [text] if text else []
    pieces: list[str] = []
    start = 0
    for m in pattern.finditer(text):
        if m.start() > start:
            pieces.append(text[start : m.start()])
        pieces.append(m.group())
        start = m.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces
