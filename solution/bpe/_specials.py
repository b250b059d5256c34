"""Matching special tokens literally, longest first.

Alternatives of a regex are tried left to right, so listing the specials
longest first makes "<|a|><|b|>" win over its own prefix "<|a|>" wherever
both could match. Every special is escaped: "<|endoftext|>" contains "|",
which would otherwise mean "or".
"""

from collections.abc import Iterable

import regex


def compile_specials(special_tokens: Iterable[str]) -> "regex.Pattern[str] | None":
    """Compile the specials into one pattern; None when there are none."""
    unique = sorted({t for t in special_tokens if t}, key=lambda t: (-len(t), t))
    if not unique:
        return None
    return regex.compile("|".join(regex.escape(t) for t in unique))


def split_with(text: str, pattern: "regex.Pattern[str] | None") -> list[str]:
    """Split ``text`` around the matches of ``pattern``; empty pieces are dropped."""
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
