"""Part 2: train a byte-level BPE tokenizer on a text file.

Pipeline: read the file (strict UTF-8) -> cut out special tokens -> cut the
rest into GPT-2 pre-tokens -> count distinct pre-tokens -> merge the most
frequent byte pair until the vocabulary is full. Counting distinct
pre-tokens first is what makes this fast: a corpus of millions of words has
only tens of thousands of distinct ones, and merges are learned on those.
"""

import os

from . import _merge_loop, _pretoken_counts


def _check_args(vocab_size: object, special_tokens: object) -> list[str]:
    if special_tokens is None:
        special_tokens = []
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a list of str, not a single str")
    specials: list[str] = []
    for tok in special_tokens:
        if not isinstance(tok, str):
            raise TypeError(f"special tokens must be str, got {type(tok).__name__}")
        if tok == "":
            raise ValueError("a special token cannot be the empty string")
        if tok not in specials:
            specials.append(tok)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    if vocab_size < 256 + len(specials):
        raise ValueError(
            f"vocab_size={vocab_size} is too small: it must be at least 256 (one id per byte)"
            f" + {len(specials)} special token(s) = {256 + len(specials)}"
        )
    return specials


def train_bpe(
    input_path: str | os.PathLike, vocab_size: int, special_tokens: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train byte-level BPE on the UTF-8 file ``input_path``.

    Returns ``(vocab, merges)``: ids 0-255 are the single bytes, then the
    special tokens (duplicates ignored, UTF-8 encoded) in the order given,
    then one id per merge in the order merges were learned. Ties between
    equally frequent pairs go to the lexicographically greater pair.

    >>> # vocab, merges = train_bpe("corpus.txt", 1000, ["<|endoftext|>"])
    """
    specials = _check_args(vocab_size, special_tokens)
    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    for tok in specials:
        vocab[len(vocab)] = tok.encode("utf-8")
    word_counts = _pretoken_counts.count_pretokens(input_path, specials)
    large = _pretoken_counts.is_large(input_path)
    merges = _merge_loop.learn_merges(word_counts, vocab, vocab_size - len(vocab), large=large)
    return vocab, merges
