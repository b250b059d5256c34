"""Watch character-level BPE learn, one merge at a time, on "low lower lowest"."""

from __future__ import annotations

from ._common import heading, show, table

TITLE = 'the merges learned on "low lower lowest", one by one (Part 1)'
NEEDS = "CharBPE.train, merge, CharBPE.encode (Part 1)"
TEXT = "low lower lowest"


def _tokens(ids: list[int], vocab: list[str]) -> str:
    return "|".join(show(vocab[i]) for i in ids)


def run(bpe) -> None:
    heading(f"Lab trace: BPE merges on {TEXT!r}")
    t = bpe.CharBPE.train(TEXT, 10)
    n_chars = len(t.vocab) - len(t.merges)
    ids = [t.vocab.index(c) for c in TEXT]  # one id per character, before any merge
    rows = [["start", "", "", "", len(ids), _tokens(ids, t.vocab)]]
    for step, ((a, b), new_id) in enumerate(t.merges, start=1):
        merged = bpe.merge(ids, (a, b), new_id)
        rows.append(
            [
                step,
                f"{show(t.vocab[a])} + {show(t.vocab[b])}",
                f"{new_id} = {show(t.vocab[new_id])}",
                len(ids) - len(merged),
                len(merged),
                _tokens(merged, t.vocab),
            ]
        )
        ids = merged
    print(
        f"{len(TEXT)} characters, {n_chars - 1} distinct (ids 1-{n_chars - 1}; id 0 is the "
        f"unknown token). '·' is a space.\n"
    )
    print(
        table(["step", "merge", "new token", "replaced", "tokens", "text as tokens"], rows, right={0, 3, 4})
    )
    final = t.encode(TEXT)
    print(
        f"\nAsked for 10 merges, learned {len(t.merges)}: after that no pair occurs twice, "
        "so training stops early."
    )
    print(f"encode({TEXT!r}) = {final}: {len(TEXT)} characters -> {len(final)} tokens.")
    if final != ids:
        print(
            "WARNING: encode() does not agree with replaying the merges above. "
            "Check that encode applies the merges in the order they were learned."
        )
    print(
        "\nNotice: in step 1, 'l'+'o' and 'o'+'w' both occur 3 times; 'l'+'o' wins because "
        "its first occurrence comes earlier. Each merge shortens the text by its count."
    )
