"""`train_bpe` with another id layout CS336 allows: the 256 bytes, then the merges, special tokens last."""

from __future__ import annotations

from cs336_basics import bpe


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    vocab, merges = bpe.train_bpe(input_path, vocab_size, list(special_tokens))
    specials = {token.encode("utf-8") for token in special_tokens}
    ordinary = [token for _, token in sorted(vocab.items()) if token not in specials]
    last = [token for _, token in sorted(vocab.items()) if token in specials]
    return dict(enumerate(ordinary + last)), merges
