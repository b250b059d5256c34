"""Bytes per token: a tokenizer compresses the language it was trained on, and little else."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ._common import corpus, heading, table

TITLE = "bytes per token, English vs Chinese, each tokenizer on each language (Parts 2, 3)"
NEEDS = "train_bpe (Part 2) and BPETokenizer encode (Part 3)"
EOT = "<|endoftext|>"
VOCAB_SIZE = 256 + 1 + 500
TRAIN_BYTES = 60_000
HELD_OUT_BYTES = 20_000


def _bytes_per_token(tokenizer, text: str) -> float:
    return len(text.encode("utf-8")) / len(tokenizer.encode(text))


def run(bpe) -> None:
    heading("Lab compression: bytes per token on held-out stories")
    gen = corpus().generate_text
    held_out = {"English": gen("en", HELD_OUT_BYTES, 103), "Chinese": gen("zh", HELD_OUT_BYTES, 104)}
    tokenizers = {"bytes only (no merges)": bpe.BPETokenizer({i: bytes([i]) for i in range(256)}, [], [EOT])}
    with tempfile.TemporaryDirectory() as tmp:
        for language, kind, seed in (("English", "en", 101), ("Chinese", "zh", 102)):
            path = Path(tmp) / f"train_{kind}.txt"
            path.write_text(gen(kind, TRAIN_BYTES, seed), encoding="utf-8")
            vocab, merges = bpe.train_bpe(path, VOCAB_SIZE, [EOT])
            tokenizers[f"trained on {language}"] = bpe.BPETokenizer(vocab, merges, [EOT])
    print(
        f"Each tokenizer: vocab_size={VOCAB_SIZE} (256 bytes + 1 special + 500 merges), trained "
        f"on {TRAIN_BYTES // 1000} kB of\nstories. Measured on {HELD_OUT_BYTES // 1000} kB of "
        "OTHER stories (held out: never seen in training).\n"
    )
    rows = [
        [name] + [f"{_bytes_per_token(tok, text):.2f}" for text in held_out.values()]
        for name, tok in tokenizers.items()
    ]
    print(table(["tokenizer", "English bytes/token", "Chinese bytes/token"], rows, right={1, 2}))
    print(
        "\nNotice: more bytes per token means shorter sequences for the model. Each trained "
        "tokenizer\ncompresses its own language well and the other one barely better than raw "
        "bytes: a\nChinese character is 3 UTF-8 bytes, and the English merges never join them."
    )
