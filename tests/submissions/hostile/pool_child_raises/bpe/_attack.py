"""train_bpe() hands its counting to a multiprocessing Pool whose worker raises: the feedback must
be the child's exception, never a timeout."""
import multiprocessing

from . import _hostile


def _count(path):
    raise ValueError(f"the counting child choked on {path}")


def train_bpe(input_path, vocab_size, special_tokens):
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_count, [str(input_path)])


_hostile.patch_public("train_bpe", train_bpe)
