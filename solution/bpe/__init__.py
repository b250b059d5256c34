"""bpe: a byte-level BPE tokenizer, built in three parts.

Part 1 ``char_bpe``: BPE on characters, to trace by hand.
Part 2 ``training``: train byte-level BPE on a file (``train_bpe``).
Part 3 ``tokenizer``: encode and decode with a trained model (``BPETokenizer``).
``pretokenize`` and ``gpt2_bytes`` hold the pieces they share.

Each answer is in the module of the same name as the starter's stub.
``extras/`` holds what no stub asks for: parallel counting for very large
training files, a whole file to an array of ids, a progress bar. It builds
on the answers, never the reverse: ``extras.train_large.train_bpe`` is
``training``'s with a very large file counted in parallel.
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
