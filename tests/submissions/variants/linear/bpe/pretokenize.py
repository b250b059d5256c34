"""Special-token splitting and GPT-2 pre-tokenization."""
from __future__ import annotations

from collections.abc import Iterable

import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_COMPILED = regex.compile(GPT2_PATTERN)


def split_on_special_tokens(text: str, special_tokens: Iterable[str]) -> list[str]:
    specials = sorted({s for s in special_tokens if s}, key=len, reverse=True)
    if not specials:
        return [text] if text else []
    pattern = regex.compile("|".join(regex.escape(s) for s in specials))
    pieces: list[str] = []
    start = 0
    for m in pattern.finditer(text):
        if m.start() > start:
            pieces.append(text[start:m.start()])
        pieces.append(m.group())
        start = m.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def pretokenize(text: str) -> list[str]:
    return _COMPILED.findall(text)
