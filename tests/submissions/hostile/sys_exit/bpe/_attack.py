"""train_bpe() raises SystemExit(0), which a careless runner treats as a clean end."""
import sys

from . import _hostile


def train_bpe(input_path, vocab_size, special_tokens):
    sys.exit(0)


_hostile.patch_public("train_bpe", train_bpe)
