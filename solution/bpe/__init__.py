"""bpe: a byte-level BPE tokenizer, built in three parts.

Part 1 ``char_bpe``: BPE on characters, to trace by hand.
Part 2 ``training``: train byte-level BPE on a file (``train_bpe``).
Part 3 ``tokenizer``: encode and decode with a trained model (``BPETokenizer``).
``pretokenize`` and ``gpt2_bytes`` hold the pieces they share.

The ``_``-prefixed modules are the machinery behind them:
``_merge_loop`` (incremental pair counts and a heap), ``_pretoken_counts``,
``_parallel`` (large files: safe cut points and worker processes),
``_streaming`` (what ``encode_iterable`` may emit before the text ends),
``_specials``, ``_text_file`` (strict UTF-8, whole or in bounded blocks),
``_gpt2_files``, ``_progress`` and ``_encode_file`` (a whole file to a binary
array of ids: ``python -m bpe._encode_file``).
"""

from .char_bpe import CharBPE, merge
from .gpt2_bytes import bytes_to_unicode, unicode_to_bytes
from .pretokenize import GPT2_PATTERN, pretokenize, split_on_special_tokens
from .tokenizer import BPETokenizer
from .training import train_bpe

__all__ = [
    "GPT2_PATTERN",
    "BPETokenizer",
    "CharBPE",
    "bytes_to_unicode",
    "merge",
    "pretokenize",
    "split_on_special_tokens",
    "train_bpe",
    "unicode_to_bytes",
]
