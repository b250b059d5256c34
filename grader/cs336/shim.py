"""The kit's `bpe` API on top of a CS336 repository's `tests/adapters.py` (runs in the sandbox).

Copied into the sandbox as `bpe/__init__.py`, with the student's repository beside it as
`bpe/_repo/`. Stdlib only. The repository root goes on sys.path for good (not just for the import),
so pool children made by spawn or forkserver, which copy the parent's sys.path, import
`cs336_basics` too; PYTHONPATH carries it to any other child interpreter.

The shim adapts the kit's calls to CS336's and never judges: the graded tests on the trusted side do.
"""

import importlib
import os
import sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_repo")
if REPO not in sys.path:
    sys.path.insert(0, REPO)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p)

adapters = importlib.import_module("tests.adapters")


def _once(special_tokens):
    """CS336 never says what a repeated special token means, so each is passed once."""
    return list(dict.fromkeys(special_tokens or []))


def train_bpe(input_path, vocab_size, special_tokens):
    return adapters.run_train_bpe(
        input_path=input_path, vocab_size=vocab_size, special_tokens=_once(special_tokens)
    )


class BPETokenizer:
    """`get_tokenizer(vocab, merges, special_tokens)` behind the kit's tokenizer methods.

    Special tokens missing from the vocab are added here, at the next free ids: CS336 leaves their
    ids open, so the student's tokenizer always gets them already in its vocab."""

    def __init__(self, vocab, merges, special_tokens=None):
        specials = _once(special_tokens)
        vocab = dict(vocab)
        known = set(vocab.values())
        free = max(vocab, default=-1) + 1
        for token in specials:
            if token.encode("utf-8") not in known:
                vocab[free] = token.encode("utf-8")
                free += 1
        self._tok = adapters.get_tokenizer(vocab, merges, specials or None)

    def encode(self, text):
        return self._tok.encode(text)

    def decode(self, ids):
        return self._tok.decode(ids)

    def encode_iterable(self, iterable):
        yield from self._tok.encode_iterable(iterable)
