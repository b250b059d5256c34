"""Reading training/encoding input: strict UTF-8, bytes exactly as stored.

Opening in text mode would translate "\\r\\n" to "\\n" and silently change
what BPE learns, so files are read as bytes and decoded strictly. Every error
names the file, so a student with ten corpora knows which one is broken.

A large file is never read whole: ``iter_text`` streams a byte range of it
(one segment) in bounded blocks through an incremental UTF-8 decoder, which
carries a character cut in half by a block boundary over to the next block.
Its errors give the byte offset of the bad byte in the whole file.
"""

import codecs
import os
from collections.abc import Iterator


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


BLOCK_BYTES = 1 << 20  # 1 MiB of text in memory at a time, per process (about 4 MiB as a str)


def iter_text(path: str | os.PathLike, start: int, end: int, block: int = BLOCK_BYTES) -> Iterator[str]:
    """Yield the text of bytes ``[start, end)`` of ``path`` in chunks."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        while pos < end:
            data = f.read(min(block, end - pos))
            if not data:
                break
            pending = decoder.getstate()[0]  # bytes of a character cut by the last block
            try:
                text = decoder.decode(data, final=pos + len(data) >= end)
            except UnicodeDecodeError as e:
                offset = pos - len(pending) + e.start
                raise ValueError(
                    f"{os.fspath(path)}: not valid UTF-8 at byte {offset} ({e.reason})"
                ) from None
            pos += len(data)
            if text:
                yield text
