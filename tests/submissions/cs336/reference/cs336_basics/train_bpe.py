"""`train_bpe` as CS336 asks for it: (input_path, vocab_size, special_tokens) -> (vocab, merges)."""

from __future__ import annotations

from cs336_basics import bpe


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    return bpe.train_bpe(input_path, vocab_size, list(special_tokens))
