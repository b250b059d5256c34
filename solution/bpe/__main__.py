"""Command line: ``python -m bpe train ...`` and ``python -m bpe encode ...``.

    python -m bpe train corpus.txt --vocab-size 1000 --special-token '<|endoftext|>' --out model/
    python -m bpe encode --vocab model/vocab.json --merges model/merges.txt corpus.txt --out ids.bin

Uses only the public API, so it works with any complete implementation.
Mistakes in the input (a missing file, bad UTF-8, a vocab too small) end
with one line on stderr and exit status 2, never a traceback.
"""

import argparse
import os
import sys
from array import array
from pathlib import Path

from . import BPETokenizer, train_bpe

_TYPECODES = {"uint16": ("H", 2**16), "uint32": ("I", 2**32)}
_CHUNK_CHARS = 1 << 16
_BATCH_IDS = 1 << 16


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bpe", description="Train or apply a byte-level BPE tokenizer."
    )
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="learn vocab.json and merges.txt from a UTF-8 text file")
    t.add_argument("file", help="training text (UTF-8)")
    t.add_argument("--vocab-size", type=int, required=True, help="256 bytes + specials + merges")
    t.add_argument(
        "--special-token",
        action="append",
        default=[],
        metavar="T",
        help="a special token, e.g. '<|endoftext|>' (repeatable)",
    )
    t.add_argument("--out", required=True, help="directory for vocab.json and merges.txt")

    e = sub.add_parser("encode", help="encode a UTF-8 text file to token ids")
    e.add_argument("file", help="text to encode (UTF-8)")
    e.add_argument("--vocab", required=True, help="vocab.json (GPT-2 format)")
    e.add_argument("--merges", required=True, help="merges.txt (GPT-2 format)")
    e.add_argument("--special-token", action="append", default=[], metavar="T")
    e.add_argument("--out", help="write ids as a binary array here (default: print them)")
    e.add_argument(
        "--dtype", choices=sorted(_TYPECODES), default="uint16", help="element type of --out (little-endian)"
    )
    return p


def _replace_atomically(tmp: Path, final: Path) -> None:
    os.replace(tmp, final)  # readers never see a half-written file


def _train(args: argparse.Namespace) -> None:
    vocab, merges = train_bpe(args.file, args.vocab_size, args.special_token)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp_vocab, tmp_merges = out / ".vocab.json.tmp", out / ".merges.txt.tmp"
    BPETokenizer(vocab, merges, args.special_token).save(tmp_vocab, tmp_merges)
    _replace_atomically(tmp_vocab, out / "vocab.json")
    _replace_atomically(tmp_merges, out / "merges.txt")
    print(f"wrote {out / 'vocab.json'} ({len(vocab)} tokens) and {out / 'merges.txt'} ({len(merges)} merges)")


def _read_chunks(path: str):
    # newline="" keeps "\r\n" as is, exactly like train_bpe reads its input.
    with open(path, encoding="utf-8", newline="") as f:
        try:
            while chunk := f.read(_CHUNK_CHARS):
                yield chunk
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not valid UTF-8 ({e.reason})") from None


def _encode(args: argparse.Namespace) -> None:
    tok = BPETokenizer.from_files(args.vocab, args.merges, args.special_token)
    ids = tok.encode_iterable(_read_chunks(args.file))
    if args.out is None:
        sep = ""
        for i in ids:
            sys.stdout.write(f"{sep}{i}")
            sep = " "
        sys.stdout.write("\n")
        return
    code, limit = _TYPECODES[args.dtype]
    if max(tok.vocab) >= limit:
        raise ValueError(
            f"{args.vocab}: ids go up to {max(tok.vocab)}, too large for {args.dtype}; use --dtype uint32"
        )
    out = Path(args.out)
    tmp = out.with_name(out.name + ".tmp")
    count = 0
    try:
        with open(tmp, "wb") as f:
            batch = array(code)
            for i in ids:
                batch.append(i)
                if len(batch) >= _BATCH_IDS:
                    count += _flush(batch, f)
            count += _flush(batch, f)
        _replace_atomically(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    print(f"wrote {count} ids to {out} ({args.dtype}, little-endian)")


def _flush(batch: array, f) -> int:
    n = len(batch)
    if sys.byteorder == "big":
        batch.byteswap()
    batch.tofile(f)
    del batch[:]
    return n


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        _train(args) if args.command == "train" else _encode(args)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except NotImplementedError as e:
        print(f"error: not written yet: {e or 'a function this command needs'}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
