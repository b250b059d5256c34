"""Your byte-level BPE tokenizer. Everything the grader uses is re-exported here."""

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
