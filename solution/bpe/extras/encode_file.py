"""Encoding a whole file to a binary array of token ids, in parallel.

An extra: no stub asks for it. Language-model training reads token ids as a
flat array on disk. For a large file we cut it before special tokens (see
``segments``), let forked workers encode the segments (they inherit the
tokenizer, nothing is pickled but the results) and write the results in
order. Each segment is streamed through ``encode_iterable``, so memory stays
bounded even when a segment is huge. numpy is not needed: ``array`` writes
machine integers directly.

Run as ``python -m bpe.extras.encode_file --vocab V --merges M FILE --out ids.bin``.
"""

import argparse
import itertools
import os
import sys
from array import array
from functools import partial
from pathlib import Path

from ..tokenizer import BPETokenizer
from .progress import progress
from .segments import MAX_WORKERS, find_cuts, iter_text, map_ordered

TYPECODES = {"uint16": ("H", 1 << 16), "uint32": ("I", 1 << 32)}
LARGE_BYTES = 8 << 20  # smaller files are encoded in this process
SEGMENT_BYTES = 8 << 20

_worker_tokenizer: BPETokenizer | None = None  # set before forking; read by workers


def _encode_span(path: str | os.PathLike, code: str, span: tuple[int, int]) -> bytes:
    ids = array(code, _worker_tokenizer.encode_iterable(iter_text(path, *span)))
    if sys.byteorder == "big":
        ids.byteswap()  # the file format is little-endian everywhere
    return ids.tobytes()


def encode_file(
    tok: BPETokenizer,
    path: str | os.PathLike,
    out_path: str | os.PathLike,
    dtype: str = "uint16",
    workers: int = MAX_WORKERS,
) -> int:
    """Encode ``path`` into ``out_path`` as little-endian ``dtype``; return the id count."""
    global _worker_tokenizer
    code, limit = TYPECODES[dtype]
    if max(tok.vocab) >= limit:
        raise ValueError(f"ids go up to {max(tok.vocab)}, too large for {dtype}; use uint32")
    size = os.path.getsize(path)
    if size < LARGE_BYTES:
        spans, workers = [(0, size)], 1
    else:
        with open(path, "rb") as f:
            cuts = find_cuts(f, tok.special_tokens, n_segments=max(workers, -(-size // SEGMENT_BYTES)))
        spans = list(itertools.pairwise(cuts))
    _worker_tokenizer = tok
    out_path = Path(out_path)
    tmp = out_path.with_name(out_path.name + ".tmp")
    written = 0
    bar = progress("encoding", size, large=size >= LARGE_BYTES, unit=" bytes")
    try:
        with open(tmp, "wb") as out:
            for span, data in zip(spans, map_ordered(partial(_encode_span, path, code), spans, workers)):
                out.write(data)
                written += len(data) // array(code).itemsize
                bar.advance(span[1] - span[0])
        os.replace(tmp, out_path)  # never leave a half-written output behind
    finally:
        bar.close()
        tmp.unlink(missing_ok=True)
        _worker_tokenizer = None
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bpe.extras.encode_file", description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--vocab", required=True)
    p.add_argument("--merges", required=True)
    p.add_argument("--special-token", action="append", default=[])
    p.add_argument("--out", required=True)
    p.add_argument("--dtype", choices=sorted(TYPECODES), default="uint16")
    args = p.parse_args(argv)
    try:
        tok = BPETokenizer.from_files(args.vocab, args.merges, args.special_token)
        n = encode_file(tok, args.file, args.out, args.dtype)
    except OSError as e:
        print(f"error: {e.filename + ': ' if e.filename else ''}{e.strerror or e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {n} ids to {args.out} ({args.dtype}, little-endian)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
