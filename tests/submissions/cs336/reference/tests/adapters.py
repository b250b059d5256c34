"""The entry points CS336's tests (and the kit's cs336 contract) call; CS336's own file has many more."""

from __future__ import annotations

import os
from typing import Any

from cs336_basics.tokenizer import Tokenizer
from cs336_basics.train_bpe import train_bpe


def get_tokenizer(
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    special_tokens: list[str] | None = None,
) -> Any:
    return Tokenizer(vocab, merges, special_tokens)


def run_train_bpe(
    input_path: str | os.PathLike,
    vocab_size: int,
    special_tokens: list[str],
    **kwargs,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    return train_bpe(input_path, vocab_size, special_tokens, **kwargs)
