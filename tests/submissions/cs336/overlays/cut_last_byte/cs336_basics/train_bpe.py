"""`train_bpe` that cuts the file into chunks at the first special token, as CS336 trainers do to
pre-tokenize in parallel, but when that token never occurs it cuts off the last byte as a chunk of
its own: each chunk is decoded alone, so a file ending in a two-byte character cannot be read."""

from __future__ import annotations

import tempfile
from itertools import pairwise
from pathlib import Path

from cs336_basics import bpe


def chunks(data: bytes, token: bytes) -> list[str]:
    cuts = [0, len(data)]
    at = data.find(token)
    while at != -1:
        cuts.append(at)
        at = data.find(token, at + len(token))
    if len(cuts) == 2 and data:
        cuts.append(len(data) - 1)
    return [data[a:b].decode("utf-8") for a, b in pairwise(sorted(set(cuts)))]


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    if not special_tokens:
        return bpe.train_bpe(input_path, vocab_size, [])
    # Chunks never share a pre-token: joined by a special token, they train as if apart.
    separator = special_tokens[0]
    text = separator.join(chunks(Path(input_path).read_bytes(), separator.encode("utf-8")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chunks.txt"
        path.write_bytes(text.encode("utf-8"))
        return bpe.train_bpe(path, vocab_size, list(special_tokens))
