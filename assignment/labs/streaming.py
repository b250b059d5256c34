"""encode_iterable on a file, chunk by chunk, must give exactly what encode gives."""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

from ._common import corpus, heading, table

TITLE = "encode_iterable vs encode on a whole file: same ids, less memory (Part 3)"
NEEDS = "train_bpe (Part 2), BPETokenizer encode and encode_iterable (Part 3)"
EOT = "<|endoftext|>"


def _chunks(text: str, size: int):
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _first_difference(a: list[int], b: list[int]) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"at token {i}"
    return "" if len(a) == len(b) else f"length {len(b):,} vs {len(a):,}"


def _peak_kib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def run(bpe) -> None:
    heading("Lab streaming: encode_iterable vs encode")
    gen = corpus().generate_text
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "train.txt"
        train.write_text(gen("mixed", 50_000, 301), encoding="utf-8")
        tok = bpe.BPETokenizer(*bpe.train_bpe(train, 256 + 1 + 300, [EOT]), [EOT])
        path = Path(tmp) / "held_out.txt"
        path.write_text(gen("mixed", 150_000, 302), encoding="utf-8")
        with open(path, encoding="utf-8", newline="") as f:
            whole = tok.encode(f.read())
        rows = []
        with open(path, encoding="utf-8", newline="") as f:
            ids = list(tok.encode_iterable(f))
        rows.append(["the open file (line by line)", f"{len(ids):,}", _verdict(whole, ids)])
        text = path.read_text(encoding="utf-8")
        for size in (4096, 7, 1):
            ids = list(tok.encode_iterable(_chunks(text, size)))
            rows.append(
                [
                    f"chunks of {size} character{'s' if size > 1 else ''}",
                    f"{len(ids):,}",
                    _verdict(whole, ids),
                ]
            )
        print(
            f"encode(whole file) gives {len(whole):,} ids. encode_iterable must give the same "
            "ids whatever\nthe chunks: a chunk may end inside a word or inside "
            f"{EOT!r}.\n"
        )
        print(table(["encode_iterable over", "ids", "same as encode?"], rows, right={1}))

        def whole_file():
            with open(path, encoding="utf-8", newline="") as f:
                len(tok.encode(f.read()))

        def streamed():
            with open(path, encoding="utf-8", newline="") as f:
                sum(1 for _ in tok.encode_iterable(f))

        size_kib = path.stat().st_size / 1024
        print(f"\nPeak memory allocated while counting the ids of this {size_kib:,.0f} KiB file:")
        print(
            table(
                ["method", "peak KiB"],
                [
                    ["encode(f.read())", f"{_peak_kib(whole_file):,.0f}"],
                    ["encode_iterable(f)", f"{_peak_kib(streamed):,.0f}"],
                ],
                right={1},
            )
        )
    print(
        "\nNotice: a streamed file never has to fit in memory, which matters for 825 GB. (Your "
        "cache\nfills up in both runs: memory that stays bounded, whatever the file size.)"
    )


def _verdict(expected: list[int], got: list[int]) -> str:
    where = _first_difference(expected, got)
    return "yes" if not where else f"NO, first difference {where}"
