"""One escaping of bytes for fixtures and messages, so every file diffs line by line.

Printable ASCII stays as it is (except backslash); every other byte, space included, is written
`\\xNN`. The escaping is unambiguous, so `unescape(escape(b)) == b` for every `b`.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})|\\\\")


def escape(token: bytes) -> str:
    out = []
    for byte in token:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x21 <= byte <= 0x7E:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def unescape(text: str) -> bytes:
    raw = text.encode("ascii")
    return _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]) if m.group(1) else b"\\", raw)


def show(token: bytes) -> str:
    """A token as a student reads it: Python's own bytes literal, e.g. b' the' or b'\\xc3'."""
    return repr(token)


def show_pair(pair: tuple[bytes, bytes]) -> str:
    a, b = pair
    return f"({show(a)}, {show(b)})"
