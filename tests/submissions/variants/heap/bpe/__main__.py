"""Command line: `python -m bpe train FILE --vocab-size N [--special-token T ...] --out DIR`,
`python -m bpe encode FILE --vocab VOCAB --merges MERGES [--special-token T ...]`."""
from __future__ import annotations

import argparse
import os
import sys

from . import BPETokenizer, train_bpe


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bpe")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("file")
    t.add_argument("--vocab-size", type=int, required=True)
    t.add_argument("--special-token", action="append", default=[])
    t.add_argument("--out", required=True)
    e = sub.add_parser("encode")
    e.add_argument("file")
    e.add_argument("--vocab", required=True)
    e.add_argument("--merges", required=True)
    e.add_argument("--special-token", action="append", default=[])
    args = ap.parse_args(argv)
    try:
        if args.cmd == "train":
            vocab, merges = train_bpe(args.file, args.vocab_size, args.special_token)
            os.makedirs(args.out, exist_ok=True)
            BPETokenizer(vocab, merges, args.special_token).save(
                os.path.join(args.out, "vocab.json"), os.path.join(args.out, "merges.txt"))
        else:
            tok = BPETokenizer.from_files(args.vocab, args.merges, args.special_token)
            with open(args.file, encoding="utf-8", newline="") as f:
                print(" ".join(map(str, tok.encode(f.read()))))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
