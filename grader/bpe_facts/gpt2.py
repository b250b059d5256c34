"""GPT-2's byte <-> printable-character table, rebuilt here so the trusted side never imports a submission."""

from __future__ import annotations

# The pre-tokenizer's pattern (the contract's, as in the starter): pretokenize(text) is regex.findall of it.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _table() -> dict[int, str]:
    # Bytes that are already printable keep their own character; the rest are moved to 256 and up.
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


BYTE_TO_UNICODE: dict[int, str] = _table()
UNICODE_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_UNICODE.items()}


def render(token: bytes) -> str:
    return "".join(BYTE_TO_UNICODE[b] for b in token)


def unrender(text: str) -> bytes:
    return bytes(UNICODE_TO_BYTE[c] for c in text)
