"""Reading a byte range of a file as text, in bounded blocks.

A segment may hold gigabytes without a single special token, so it is never
read whole: blocks of bytes go through an incremental UTF-8 decoder (which
carries a character cut in half by a block boundary over to the next block)
and come out as text chunks. Decoding errors name the file and the byte
offset of the bad byte in the whole file.
"""

import codecs
import os
from collections.abc import Iterator

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
                raise ValueError(f"{os.fspath(path)}: not valid UTF-8 at byte {offset} ({e.reason})") from None
            pos += len(data)
            if text:
                yield text
