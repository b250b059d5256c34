"""Reading and writing the golden fixtures under data/fixtures/ (one format, used by both sides).

Formats, chosen so that a fixture diff reads like a story:
- `train/<case>/case.json`  the inputs (corpus file, vocab_size, special_tokens) and what to expect
                            (number of merges, early stop); JSON with sorted keys.
- `train/<case>/merges.txt` one merge per line, "A B", each token escaped by `render.escape`
                            (printable ASCII as is, every other byte as \\xNN, space included).
- `train/<case>/vocab.txt`  one token per line: "<id>\\t<escaped bytes>".
- `encode/<case>/tokenizer.json` which trained case gives vocab + merges, and which special tokens;
  `encode/<case>/texts.jsonl`   one {"ids": [...], "text": "..."} per line.
- `gpt2/<case>/vocab.json`, `merges.txt`: GPT-2's own file format, to load with `from_files`;
  `gpt2/<case>/texts.jsonl` as above.
"""
from __future__ import annotations

import json
from pathlib import Path

from grader.feedback.render import escape, unescape

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"


def dump_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def format_merges(merges) -> str:
    return "".join(f"{escape(a)} {escape(b)}\n" for a, b in merges)


def parse_merges(text: str) -> list[tuple[bytes, bytes]]:
    out = []
    for line in text.splitlines():
        a, b = line.split(" ")
        out.append((unescape(a), unescape(b)))
    return out


def format_vocab(vocab: dict[int, bytes]) -> str:
    return "".join(f"{i}\t{escape(token)}\n" for i, token in sorted(vocab.items()))


def parse_vocab(text: str) -> dict[int, bytes]:
    vocab = {}
    for line in text.splitlines():
        i, token = line.split("\t")
        vocab[int(i)] = unescape(token)
    return vocab


def format_texts(rows: list[tuple[str, list[int]]]) -> str:
    return "".join(json.dumps({"ids": ids, "text": text}, sort_keys=True, ensure_ascii=False) + "\n"
                   for text, ids in rows)


def parse_texts(text: str) -> list[tuple[str, list[int]]]:
    return [(row["text"], row["ids"]) for row in map(json.loads, text.splitlines())]


class TrainCase:
    """One golden training case, read from `<root>/train/<name>/`."""

    def __init__(self, root: Path, name: str):
        self.dir = root / "train" / name
        self.name = name
        meta = json.loads((self.dir / "case.json").read_text(encoding="utf-8"))
        self.corpus_path: Path = root / "corpora" / meta["corpus"]
        self.vocab_size: int = meta["vocab_size"]
        self.special_tokens: list[str] = meta["special_tokens"]
        self.stops_early: bool = meta["stops_early"]
        self.about: str = meta["about"]
        self.merges = parse_merges((self.dir / "merges.txt").read_text(encoding="ascii"))
        self.vocab = parse_vocab((self.dir / "vocab.txt").read_text(encoding="ascii"))

    def corpus_text(self) -> str:
        return self.corpus_path.read_bytes().decode("utf-8")


class EncodeCase:
    """Golden encode case: a tokenizer (from a training case) and texts with their ids."""

    def __init__(self, root: Path, name: str):
        self.dir = root / "encode" / name
        meta = json.loads((self.dir / "tokenizer.json").read_text(encoding="utf-8"))
        self.train = TrainCase(root, meta["train_case"])
        self.special_tokens: list[str] = meta["special_tokens"]
        self.texts = parse_texts((self.dir / "texts.jsonl").read_text(encoding="utf-8"))


def root(visibility: str) -> Path:
    """`public` or `hidden`."""
    return FIXTURES / visibility
