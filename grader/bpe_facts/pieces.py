"""The contract's cutting of a text before any merge: the special tokens cut out (literally, the
longest first), then each other piece split into GPT-2's pre-tokens. The checks compare a
submission's own cutting with it; the fixtures' cases are chosen with it."""

from __future__ import annotations

from collections.abc import Iterable

import regex

from grader.bpe_facts.gpt2 import GPT2_PATTERN


def reference_split(text: str, special_tokens: Iterable[str] | None) -> list[str]:
    """The contract's split_on_special_tokens: literal, longest first, no empty pieces."""
    specials = sorted(dict.fromkeys(special_tokens or []), key=len, reverse=True)
    if not specials:
        return [text] if text else []
    pattern = "(" + "|".join(regex.escape(s) for s in specials) + ")"
    return [piece for piece in regex.split(pattern, text) if piece]


def reference_pretokenize(text: str) -> list[str]:
    return regex.findall(GPT2_PATTERN, text)
