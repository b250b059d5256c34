"""More merges: a bigger vocabulary, fewer tokens. What does each side cost?"""

from __future__ import annotations

from ._common import corpus, heading, table

TITLE = "vocabulary size vs sequence length for 0-48 merges (Part 1)"
NEEDS = "CharBPE.train and CharBPE.encode (Part 1)"
MERGES = (0, 6, 12, 24, 48)
D_MODEL = 512  # width of a small transformer's embeddings
PASSAGE = 1000  # characters, for the attention column


def training_text() -> str:
    """About 8 kB of English stories, without the document separators."""
    text = corpus().generate_text("en", 8_000, 5)
    return "\n".join(doc.strip() for doc in text.split("<|endoftext|>") if doc.strip())


def run(bpe) -> None:
    heading("Lab sweep: number of merges vs tokens")
    text = training_text()
    full = bpe.CharBPE.train(text, max(MERGES))
    n_chars = len(full.vocab) - len(full.merges)
    print(
        f"Training text: {len(text):,} characters of English stories, {n_chars - 1} distinct "
        f"characters.\nThe first k merges of a 48-merge training are exactly a k-merge "
        f"training, so we train once.\n"
    )
    rows = []
    for k in MERGES:
        k = min(k, len(full.merges))
        t = bpe.CharBPE(full.vocab[: n_chars + k], full.merges[:k])
        n_tokens = len(t.encode(text))
        per_token = len(text) / n_tokens
        rows.append(
            [
                k,
                len(t.vocab),
                f"{n_tokens:,}",
                f"{per_token:.2f}",
                f"{2 * len(t.vocab) * D_MODEL:,}",
                f"{round(PASSAGE / per_token) ** 2:,}",
            ]
        )
    print(
        table(
            [
                "merges",
                "vocab size",
                "tokens",
                "chars/token",
                "table params",
                f"attention per {PASSAGE} chars",
            ],
            rows,
            right={0, 1, 2, 3, 4, 5},
        )
    )
    print(
        f"\ntable params: embedding + output layer, 2 x vocab size x {D_MODEL} (a small model's "
        f"width).\nattention per {PASSAGE} chars: (tokens in {PASSAGE} characters)^2 scores, "
        "per layer and head."
    )
    print(
        "\nNotice: every merge adds one row to the embedding table and one to the output layer,"
        "\nbut shortens the text; attention costs grow with the SQUARE of the length. GPT-2 "
        "picked\n50,257 tokens: 2 x 50,257 x 768 = 77 million parameters spent on the two "
        "tables."
    )
    print("Learned first: " + ", ".join(repr(full.vocab[n]) for _, n in full.merges[:8]))
