"""`train_bpe` that calls a compiled extension module built in place in the package (the catalogue
compiles `_fast.c` beside it for the interpreter that grades it)."""

from __future__ import annotations

from cs336_basics import _fast, bpe


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    if _fast.total([1, 2, 3]) != 6:
        raise RuntimeError("the compiled module gave a wrong answer")
    return bpe.train_bpe(input_path, vocab_size, list(special_tokens))
