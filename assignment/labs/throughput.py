"""How fast is your encoder, and what does that mean for a real dataset?"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ._common import corpus, heading, stopwatch, table

TITLE = "encode speed with and without cache hits; time to tokenize 825 GB (Parts 2, 3)"
NEEDS = "train_bpe (Part 2), BPETokenizer encode and pretokenize (Parts 2, 3)"
EOT = "<|endoftext|>"
VOCAB_SIZE = 1000
PILE_BYTES = 825e9  # the Pile, a well-known 825 GB training set


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.1f} s"


def run(bpe) -> None:
    heading("Lab throughput: how fast does your encoder go?")
    gen = corpus().generate_text
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.txt"
        path.write_text(gen("mixed", 100_000, 201), encoding="utf-8")
        vocab, merges = bpe.train_bpe(path, VOCAB_SIZE, [EOT])
    text = gen("mixed", 300_000, 202)
    n_bytes = len(text.encode("utf-8"))

    tok = bpe.BPETokenizer(vocab, merges, [EOT])
    with stopwatch() as first:
        n_tokens = len(tok.encode(text))
    with stopwatch() as second:
        tok.encode(text)

    pieces = [p for doc in text.split(EOT) for p in bpe.pretokenize(doc)]
    distinct = list(dict.fromkeys(pieces))
    fresh = bpe.BPETokenizer(vocab, merges, [EOT])
    with stopwatch() as cold:
        for piece in distinct:  # each pre-token seen for the first time: no cache can help
            fresh.encode(piece)
    no_cache = cold() / len(distinct) * len(pieces)

    print(
        f"Tokenizer: vocab_size={VOCAB_SIZE}. Text: {n_bytes:,} bytes of held-out stories, "
        f"{n_tokens:,} tokens,\n{len(pieces):,} pre-tokens of which {len(distinct):,} distinct "
        f"(repetition is what a cache exploits).\n"
    )
    rows = []
    for label, seconds in (
        ("first encode (cache filling up)", first()),
        ("second encode (cache warm)", second()),
        ("no cache hits (estimated)", no_cache),
    ):
        rate = n_bytes / max(seconds, 1e-9)
        rows.append([label, f"{seconds:.3f}", f"{rate / 1e6:.2f}", _duration(PILE_BYTES / rate)])
    print(table(["run", "seconds", "MB/s", "time for 825 GB (one core)"], rows, right={1, 2}))
    print(
        "\n'No cache hits' times each distinct pre-token once on a fresh tokenizer and scales "
        "up to\nall pre-tokens: what encode would cost if it recomputed every word. Real "
        "pipelines also\nsplit the data into chunks (at special tokens) and use every core."
    )
