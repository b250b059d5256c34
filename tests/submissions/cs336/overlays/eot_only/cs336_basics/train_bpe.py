"""`train_bpe` that cuts the text at "<|endoftext|>" alone, as if it were the one special token,
whatever special tokens it is given: those go into the vocab, but the text is not cut at them."""

from __future__ import annotations

from cs336_basics import bpe

EOT = "<|endoftext|>"


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    n_merges = vocab_size - 256 - len(special_tokens)
    _, merges = bpe.train_bpe(input_path, 256 + 1 + n_merges, [EOT])
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for a, b in merges:
        vocab[len(vocab)] = a + b
    return vocab, merges
