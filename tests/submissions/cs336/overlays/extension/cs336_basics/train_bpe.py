"""`train_bpe` that calls a compiled extension module built in place in the package (the catalogue
copies in CPython's own `_bisect`, built for the interpreter that grades it)."""

from __future__ import annotations

from cs336_basics import _bisect, bpe


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    if _bisect.bisect_left([0, 1, 2], 2) != 2:
        raise RuntimeError("the compiled module gave a wrong answer")
    return bpe.train_bpe(input_path, vocab_size, list(special_tokens))
