"""GPT-2's printable rendering of raw bytes.

GPT-2 stores its vocabulary and merges as *text* files, but a byte-level
token can hold any byte, including spaces, newlines and control bytes that
would break a one-merge-per-line, space-separated file. GPT-2's answer is a
fixed bijection from the 256 byte values to 256 printable Unicode characters:
bytes that are already visible (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) map to
themselves, every other byte to ``chr(256 + n)``. A space, for example, is
written ``Ġ`` and a newline ``Ċ``.
"""


def bytes_to_unicode() -> dict[int, str]:
    """Return GPT-2's table ``{byte value: printable character}`` (256 entries)."""
    visible = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    table = {b: chr(b) for b in visible}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    return dict(sorted(table.items()))


def unicode_to_bytes() -> dict[str, int]:
    """Return the inverse table ``{printable character: byte value}``."""
    return {ch: b for b, ch in bytes_to_unicode().items()}
