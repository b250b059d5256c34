"""Reading training/encoding input: strict UTF-8, bytes exactly as stored.

Opening in text mode would translate "\\r\\n" to "\\n" and silently change
what BPE learns, so files are read as bytes and decoded strictly. Every error
names the file, so a student with ten corpora knows which one is broken.
"""

import os


def read_utf8(path: str | os.PathLike) -> str:
    """Return the whole file decoded as UTF-8 (no newline translation).

    Raises FileNotFoundError (from ``open``, whose message names the path)
    or ValueError naming the path and the offset of the first bad byte.
    """
    with open(path, "rb") as f:
        data = f.read()
    return decode_utf8(data, path)


def decode_utf8(data: bytes, path: str | os.PathLike, offset: int = 0) -> str:
    """Decode ``data`` strictly; ``offset`` is where ``data`` starts in the file."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"{os.fspath(path)}: not valid UTF-8 at byte {offset + e.start} ({e.reason})"
        ) from None
