"""train_bpe() kills its own process group and its parent's, then answers honestly if still alive."""
import os
import signal

from . import _hostile

_orig = _hostile.package().train_bpe


def train_bpe(input_path, vocab_size, special_tokens):
    for pg in {os.getpgid(os.getppid()), os.getpgrp()}:
        try:
            os.killpg(pg, signal.SIGKILL)
        except OSError:
            pass
    return _orig(input_path, vocab_size, special_tokens)


_hostile.patch_public("train_bpe", train_bpe)
