"""Variant `linear`: id lists everywhere, a linear scan picks each merge, rank-loop encoding."""
from .char_bpe import CharBPE, merge
from .gpt2_bytes import bytes_to_unicode, unicode_to_bytes
from .pretokenize import GPT2_PATTERN, pretokenize, split_on_special_tokens
from .tokenizer import BPETokenizer
from .training import train_bpe

__all__ = [
    "merge", "CharBPE", "GPT2_PATTERN", "pretokenize", "split_on_special_tokens",
    "bytes_to_unicode", "unicode_to_bytes", "train_bpe", "BPETokenizer",
]
