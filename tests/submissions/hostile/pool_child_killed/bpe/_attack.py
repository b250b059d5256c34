"""train_bpe() hands its counting to a multiprocessing Pool whose worker is SIGKILLed (as the
out-of-memory killer would): the Pool then waits for ever, and the feedback must still say that a
child was killed, not only that the call timed out."""
import multiprocessing
import os
import signal

from . import _hostile


def _count(path):
    os.kill(os.getpid(), signal.SIGKILL)


def train_bpe(input_path, vocab_size, special_tokens):
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_count, [str(input_path)])


_hostile.patch_public("train_bpe", train_bpe)
