"""Who is measured, and how each contender is set up so that the comparison is fair.

Every contender sees the same text, the same GPT-2 pre-tokenization regex and the same special
token. tiktoken and Hugging Face `tokenizers` encoders are built offline from the vocabulary and
merges that the reference trained, so all three encoders must produce identical ids.

These functions run inside `bench/worker.py`, never in the process that prints the table.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solution"

TRAINERS = ("reference", "fast", "hf", "bpeasy", "naive")
ENCODERS = ("reference", "fast", "tiktoken", "hf")
# The Python module each contender needs; the reference and the naive trainer need nothing extra.
MODULE = {"hf": "tokenizers", "tiktoken": "tiktoken", "bpeasy": "bpeasy"}
LABEL = {
    "reference": "reference (solution/)",
    "fast": "pure-Python fast paths (bench/fast_paths)",
    "hf": "HF tokenizers",
    "tiktoken": "tiktoken",
    "bpeasy": "bpeasy",
    "naive": "naive (recount every merge)",
}


def missing(contender: str) -> str | None:
    """Why `contender` cannot run here, or None. Only the optional `bench` extra can be missing."""
    module = MODULE.get(contender)
    if module and importlib.util.find_spec(module) is None:
        return f"{module} is not installed (make bench installs the optional extra `bench`)"
    return None


def reference():
    if str(SOLUTION) not in sys.path:
        sys.path.insert(0, str(SOLUTION))
    import bpe

    return bpe


def fast():
    """(FastTokenizer, train_bpe, pretokenize): the reference with the fast paths of bench/fast_paths."""
    from bench import fast_paths

    return fast_paths.load(reference())


# ---- training: each returns (vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]] | None)


def train(contender: str, input_path: str, vocab_size: int, specials: list[str]):
    return {
        "reference": _train_reference,
        "fast": _train_fast,
        "hf": _train_hf,
        "bpeasy": _train_bpeasy,
        "naive": _train_naive,
    }[contender](input_path, vocab_size, specials)


def _train_reference(input_path, vocab_size, specials):
    package = reference().__name__  # the reference's training, a large file counted in parallel
    train_large = importlib.import_module(f"{package}.extras.train_large")
    return train_large.train_bpe(input_path, vocab_size, specials)


def _train_fast(input_path, vocab_size, specials):
    return fast()[1](input_path, vocab_size, specials)


def _train_naive(input_path, vocab_size, specials):
    from bench.naive import train_naive

    with open(input_path, encoding="utf-8", newline="") as f:
        return train_naive(f.read(), vocab_size, specials)


def _train_hf(input_path, vocab_size, specials):
    """BpeTrainer over the same ByteLevel(GPT-2 regex) pre-tokenization; the 256 byte symbols are
    given as the initial alphabet so ids 0..255 mean the same thing as in the kit."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=0,
        show_progress=False,
    )
    tok.train([str(input_path)], trainer)
    decode = reference().unicode_to_bytes()
    model = json.loads(tok.to_str())["model"]
    vocab = {i: _unrender(s, decode, specials) for s, i in model["vocab"].items()}
    merges = [
        tuple(_unrender(x, decode, []) for x in (m.split(" ", 1) if isinstance(m, str) else m))
        for m in model["merges"]
    ]
    return vocab, merges


def _unrender(s: str, decode: dict[str, int], specials: list[str]) -> bytes:
    return s.encode("utf-8") if s in specials else bytes(decode[c] for c in s)


def _train_bpeasy(input_path, vocab_size, specials):
    """bpeasy streams documents; we split on the special token ourselves and leave room for it."""
    import bpeasy

    pattern = reference().GPT2_PATTERN
    with open(input_path, encoding="utf-8", newline="") as f:
        text = f.read()
    docs = reference().split_on_special_tokens(text, specials)
    docs = [d for d in docs if d not in specials]
    ranks = bpeasy.train_bpe(iter(docs), pattern, 128, vocab_size - len(specials))
    return {rank: token for token, rank in ranks.items()}, None


# ---- encoding: each returns a fresh `encode(text) -> list[int]` built from the saved files


def encoder(
    contender: str, vocab_path: str, merges_path: str, specials: list[str]
) -> Callable[[str], list[int]]:
    return {
        "reference": _encoder_reference,
        "fast": _encoder_fast,
        "tiktoken": _encoder_tiktoken,
        "hf": _encoder_hf,
    }[contender](vocab_path, merges_path, specials)


def _encoder_reference(vocab_path, merges_path, specials):
    return reference().BPETokenizer.from_files(vocab_path, merges_path, specials).encode


def _encoder_fast(vocab_path, merges_path, specials):
    return fast()[0].from_files(vocab_path, merges_path, specials).encode


def _encoder_tiktoken(vocab_path, merges_path, specials):
    """tiktoken ranks are the kit's ids: a merged token's id is its merge's rank plus an offset,
    so tiktoken's lowest-rank-first loop replays the same merges."""
    import tiktoken

    bpe = reference()
    decode = bpe.unicode_to_bytes()
    with open(vocab_path, encoding="utf-8") as f:
        rendered = json.load(f)
    ranks, special_ids = {}, {}
    for s, i in rendered.items():
        if s in specials:
            special_ids[s] = i
        else:
            ranks[bytes(decode[c] for c in s)] = i
    enc = tiktoken.Encoding(
        "bpe-kit", pat_str=bpe.GPT2_PATTERN, mergeable_ranks=ranks, special_tokens=special_ids
    )
    return lambda text: enc.encode(text, allowed_special="all")


def _encoder_hf(vocab_path, merges_path, specials):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    tok = Tokenizer(models.BPE.from_file(vocab_path, merges_path))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(specials)
    return lambda text: tok.encode(text, add_special_tokens=False).ids
