"""Cutting a stream of text chunks into pieces that can no longer change.

``encode_iterable`` must give exactly the ids of ``encode("".join(chunks))``
whatever the chunking, without holding the whole text. A chunk boundary may
fall inside a special token, inside a run of spaces or inside a word, so
after each chunk we emit only what more text cannot change and carry the
rest over:

* Special tokens: the match decision at position p depends on at most
  ``max_special_len`` characters, so matches starting before
  ``len(buf) - max_special_len + 1`` are settled; anything later could still
  become (part of) a special token.
* Pre-tokens: GPT-2's regex looks at most one character past a match, except
  for contractions ("'ll" looks two ahead) and whitespace runs (which stretch
  to the end of the run). So every pre-token but the last is final, unless it
  starts within the last two characters ("'l" may become "'ll").

The carry-over is thus at most the longest pre-token plus a few characters.
"""

from collections.abc import Generator, Iterable, Iterator

import regex

from .pretokenize import pretokenize

Batch = tuple[list[str], "str | None"]  # settled pre-tokens, then maybe a special token


def _settle(buf: str, special_re: "regex.Pattern[str] | None", max_len: int) -> Generator[Batch, None, int]:
    """Yield the settled batches at the start of ``buf``; return where the rest begins.

    A generator rather than a list of batches: a 1 MiB chunk holds hundreds of
    thousands of pre-tokens, and materialising them all at once would
    multiply the memory a stream needs by ten.
    """
    pos = 0
    safe = len(buf) - max_len + 1 if special_re is not None else len(buf)
    if special_re is not None:
        for m in special_re.finditer(buf):
            if m.start() >= safe:
                break
            yield pretokenize(buf[pos : m.start()]), m.group()
            pos = m.end()
    settled = buf[pos : max(pos, safe)]
    tokens = pretokenize(settled)
    # Final: every pre-token but the last, unless it starts in the last two characters.
    keep, offset, limit = 0, 0, len(settled) - 2
    for t in tokens[:-1]:
        if offset >= limit:
            break
        offset += len(t)
        keep += 1
    if keep:
        yield tokens[:keep], None
    return pos + offset


def iter_batches(
    chunks: Iterable[str], special_re: "regex.Pattern[str] | None", max_special_len: int
) -> Iterator[Batch]:
    """Yield ``(pre-tokens, special or None)`` batches of the concatenated chunks, lazily."""
    buf = ""
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"encode_iterable expects str chunks, got {type(chunk).__name__}")
        if not chunk:
            continue
        buf += chunk
        keep = yield from _settle(buf, special_re, max_special_len)
        buf = buf[keep:]
    # The stream has ended: everything left is final.
    pos = 0
    if special_re is not None:
        for m in special_re.finditer(buf):
            yield pretokenize(buf[pos : m.start()]), m.group()
            pos = m.end()
    yield pretokenize(buf[pos:]), None
