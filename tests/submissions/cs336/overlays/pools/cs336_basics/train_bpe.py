"""`train_bpe` that first runs a fork, a spawn and a forkserver pool over this package's code."""

from __future__ import annotations

from cs336_basics import bpe
from cs336_basics.pools import check_pools


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    check_pools()
    return bpe.train_bpe(input_path, vocab_size, list(special_tokens))
