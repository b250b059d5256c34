"""Large files in segments: where to cut them, reading a segment, worker processes.

An extra: no stub asks for it. Training (``parallel_counts``) and
``encode_file`` use it for files of many megabytes.

Cutting just before a special token is always safe: no pre-token and no
merge crosses a special token. We aim for roughly equal segments: from each
evenly spaced guess we read ahead in small blocks until a special token
starts. Consecutive blocks overlap by ``longest special - 1`` bytes, so a
special token straddling two blocks is still found.

Searching bytes, not text, avoids decoding the file twice; UTF-8 is
self-synchronising, so a byte match of a special token in valid UTF-8 text is
always a match of whole characters. A cut is only made at an occurrence that
no earlier occurrence overlaps: with specials "ab<x>" and "<x>", the "<x>"
inside "ab<x>" is not a place where matching would start.

Workers are forked, so they inherit whatever the parent prepared (a trained
tokenizer, for instance) without pickling it. When processes cannot be made
(a sandbox with a process limit, or a single core), the same function runs
in this process: results are identical either way, only slower.

A segment is never read whole: ``iter_text`` streams it in bounded blocks
through an incremental UTF-8 decoder, which carries a character cut in half
by a block boundary over to the next block. Its errors give the byte offset
of the bad byte in the whole file.
"""

import codecs
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 2


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def map_ordered(fn: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """Yield ``fn(item)`` for each item, in order, using up to ``workers`` processes."""
    items = list(items)
    workers = min(workers, usable_cores(), len(items))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(fn, items)
        return
    try:
        pool = multiprocessing.get_context("fork").Pool(workers)
    except Exception:  # a process limit, no /dev/shm, a daemonic parent: work here instead
        yield from map(fn, items)
        return
    with pool:
        # imap yields results in input order, each as soon as it and those before it are done.
        yield from pool.imap(fn, items, chunksize=1)


_READ_AHEAD = 1 << 16


def _occurrences(block: bytes, specials: list[bytes]) -> list[tuple[int, int]]:
    """All (start, end) of special tokens in ``block``, sorted by start."""
    found = []
    for tok in specials:
        start = block.find(tok)
        while start != -1:
            found.append((start, start + len(tok)))
            start = block.find(tok, start + 1)
    return sorted(found)


def _first_safe_cut(f: BinaryIO, guess: int, size: int, specials: list[bytes], block_size: int) -> int:
    """The first offset >= ``guess`` where a special starts and none overlaps; else ``size``.

    Each block also holds the ``overlap`` bytes before it (to see occurrences
    that could cover a candidate) and after it (to see a candidate whole), and
    a block only proposes candidates starting in its own middle part.
    """
    overlap = max(len(t) for t in specials) - 1
    pos = max(guess - overlap, 0)
    while pos < size:
        f.seek(pos)
        block = f.read(block_size + overlap)
        last = pos + len(block) >= size
        lo = 0 if pos == 0 else overlap
        hi = len(block) if last else block_size
        covered_until = 0  # end of the furthest-reaching occurrence so far (block-relative)
        for start, end in _occurrences(block, specials):
            if start >= hi:
                break
            if start >= lo and pos + start >= guess and start >= covered_until:
                return pos + start
            covered_until = max(covered_until, end)
        if last:
            break
        pos += block_size - overlap
    return size


def find_cuts(f: BinaryIO, specials: list[str], n_segments: int, block_size: int = _READ_AHEAD) -> list[int]:
    """Return sorted offsets ``[0, ..., size]`` cutting ``f`` into <= n_segments pieces.

    Every inner offset is the start of a special token occurrence that is not
    inside another one, so each piece can be split and pre-tokenized alone.
    """
    size = f.seek(0, os.SEEK_END)
    raw = [t.encode("utf-8") for t in specials if t]
    if not raw or n_segments <= 1 or size == 0:
        return [0, size]
    block_size = max(block_size, 2 * max(len(t) for t in raw))
    cuts = {0, size}
    for k in range(1, n_segments):
        cuts.add(_first_safe_cut(f, size * k // n_segments, size, raw, block_size))
    return sorted(cuts)


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
