"""GPT-2's printable stand-in for every byte (given to you: nothing to implement here).

Byte-level BPE works on bytes, but vocab.json and merges.txt are text files. Many bytes are
invisible (0x0A is a newline, 0x20 a space) or are not valid text on their own (0x80-0xFF). GPT-2's
answer is a fixed, reversible table: each of the 256 byte values gets one printable Unicode
character. Bytes that are already printable keep their own character (b"A" -> "A"); the others get
characters from U+0100 upwards, in byte order. That is why a space shows up as "Ġ" (U+0120) and a
newline as "Ċ" (U+010A) in GPT-2's files.

You use this table only when saving and loading a tokenizer (Part 3); training and encoding work on
plain `bytes`.
"""

from __future__ import annotations

# Byte values that already look like themselves: "!".."~", "¡".."¬" and "®".."ÿ".
_PRINTABLE_RANGES = ((ord("!"), ord("~")), (ord("¡"), ord("¬")), (ord("®"), ord("ÿ")))


def bytes_to_unicode() -> dict[int, str]:
    """Return GPT-2's table from each byte value (0-255) to a single printable character.

    >>> table = bytes_to_unicode()
    >>> table[ord("A")], table[ord(" ")], table[ord("\\n")]
    ('A', 'Ġ', 'Ċ')
    >>> len(table), len(set(table.values()))
    (256, 256)
    """
    printable = {b for low, high in _PRINTABLE_RANGES for b in range(low, high + 1)}
    table = {b: chr(b) for b in printable}
    next_free = 256  # the stand-ins start right after the byte range, in byte order
    for b in range(256):
        if b not in printable:
            table[b] = chr(next_free)
            next_free += 1
    return dict(sorted(table.items()))


def unicode_to_bytes() -> dict[str, int]:
    """Return the inverse of `bytes_to_unicode`: printable character -> byte value.

    >>> unicode_to_bytes()["Ġ"]
    32
    >>> bytes(unicode_to_bytes()[c] for c in "ĠhiĊ")
    b' hi\\n'
    """
    return {char: b for b, char in bytes_to_unicode().items()}
