"""`train_bpe` that pre-tokenizes the file in chunks cut before each "<|endoftext|>", as CS336's
chunking example does for parallel work, whether or not that token is a listed special token: when
it is not, a cut splits the pre-token it starts in ("|><|" becomes "|>" and "<|")."""

from __future__ import annotations

import tempfile
from pathlib import Path

from cs336_basics import bpe

BOUNDARY = "<|endoftext|>"
SEPARATOR = "<|chunk boundary|>"  # never in a corpus: chunks joined by it train as if apart


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    text = Path(input_path).read_bytes().decode("utf-8")
    chunks = text.split(BOUNDARY)
    joined = chunks[0] + "".join(SEPARATOR + BOUNDARY + chunk for chunk in chunks[1:])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chunks.txt"
        path.write_bytes(joined.encode("utf-8"))
        vocab, merges = bpe.train_bpe(path, vocab_size + 1, [*special_tokens, SEPARATOR])
    at = next(i for i, token in vocab.items() if token == SEPARATOR.encode("utf-8"))
    return {(i - 1 if i > at else i): token for i, token in vocab.items() if i != at}, merges
