"""Reading and writing the golden fixtures under data/fixtures/ (one format, used by both sides).

Formats, chosen so that a fixture diff reads like a story:
- `train/<case>/case.json`  the inputs (corpus file, vocab_size, special_tokens) and what to expect
                            (number of merges, early stop); JSON with sorted keys.
- `train/<case>/merges.txt` one merge per line, "A B", each token escaped by `render.escape`
                            (printable ASCII as is, every other byte as \\xNN, space included).
- `train/<case>/vocab.txt`  one token per line: "<id>\\t<escaped bytes>".
- `train/<case>/steps.txt`   for each merge step k, after the expected merges before it: the most
                            frequent pairs with their counts (see `Step`), for "what was tied here?".
- `train/<case>/mistakes/<id>.txt` the merges a classic mistake (grader.bpe_facts.mistakes) produces.
- `encode/<case>/tokenizer.json` which trained case gives vocab + merges, and which special tokens;
  `encode/<case>/texts.jsonl`   one {"ids": [...], "text": "..."} per line.
- `gpt2/<case>/vocab.json`, `merges.txt`: GPT-2's own file format, to load with `from_files`;
  `gpt2/<case>/texts.jsonl` as above.
- `char_bpe/train.jsonl`    CharBPE.train cases: one {"merges", "num_merges", "text", "vocab"} per line.
- `speed/train/`            the training gate's expected first merges (case.json, merges.txt,
                            steps.txt, mistakes/); `speed/<gate>/ids.txt` the encoding gates'
                            expected ids, as a count and one sha256 per block of ids.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from grader.bpe_facts.render import escape, unescape
from grader.paths import FIXTURES

if TYPE_CHECKING:
    from collections.abc import Iterable


def dump_json(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def format_merges(merges: Iterable[tuple[bytes, bytes]]) -> str:
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
    return "".join(
        json.dumps({"ids": ids, "text": text}, sort_keys=True, ensure_ascii=False) + "\n"
        for text, ids in rows
    )


def parse_texts(text: str) -> list[tuple[str, list[int]]]:
    # Split on "\n" only: a text may hold U+2028 or U+0085, which str.splitlines() would cut at.
    return [(row["text"], row["ids"]) for row in parse_jsonl(text)]


def parse_jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.split("\n") if line]


def format_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in rows)


def first_difference(expected: list, got: list) -> int | None:
    """Where two lists (of merges) first differ, None when equal: the step whose counts (`Step`) a
    failure message shows, and where a mistake's stored merges part from the contract's."""
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            return i
    if len(expected) != len(got):
        return min(len(expected), len(got))
    return None


@dataclasses.dataclass
class Step:
    """The pair counts at one merge step, as far as a failure message needs them.

    `counts` lists the most frequent pairs (most frequent first, ties greatest first), then any pair
    a classic mistake would pick here (count 0: it does not occur). Every pair NOT listed occurs at
    most `others` times (0: not at all). `tied` is how many pairs share the top count `top`.
    """

    top: int
    tied: int
    others: int
    counts: dict[tuple[bytes, bytes], int]


def format_steps(steps: list[Step]) -> str:
    out = []
    for k, step in enumerate(steps):
        out.append(f"step {k}: top {step.top}, tied {step.tied}, others at most {step.others}\n")
        out.extend(f"  {n} {escape(a)} {escape(b)}\n" for (a, b), n in step.counts.items())
    return "".join(out)


def parse_steps(text: str) -> list[Step]:
    steps: list[Step] = []
    for line in text.split("\n"):
        if line.startswith("step "):
            head = line.split(": ", 1)[1].replace(",", "").split(" ")  # top N tied N others at most N
            steps.append(Step(int(head[1]), int(head[3]), int(head[7]), {}))
        elif line:
            n, a, b = line.split()
            steps[-1].counts[(unescape(a), unescape(b))] = int(n)
    return steps


class Diagnostics:
    """What explains a wrong list of merges, read from a case folder (steps.txt, mistakes/*.txt)."""

    def __init__(self, folder: Path) -> None:
        self.steps = parse_steps((folder / "steps.txt").read_text(encoding="ascii"))
        self.mistakes: dict[str, list[tuple[bytes, bytes]]] = {}
        if (folder / "mistakes").is_dir():
            for path in sorted((folder / "mistakes").glob("*.txt")):
                self.mistakes[path.stem] = parse_merges(path.read_text(encoding="ascii"))


BLOCK_IDS = 4096


def id_blocks(ids: list[int]) -> list[str]:
    """sha256 of each block of BLOCK_IDS ids: enough to check a long answer and to say where it goes wrong."""
    return [
        hashlib.sha256(",".join(map(str, ids[i : i + BLOCK_IDS])).encode("ascii")).hexdigest()
        for i in range(0, len(ids), BLOCK_IDS)
    ]


def format_id_digest(about: str, ids: list[int]) -> str:
    return f"# {about}\nids {len(ids)}\n" + "".join(
        f"{i * BLOCK_IDS} {h}\n" for i, h in enumerate(id_blocks(ids))
    )


class IdDigest:
    """Expected ids of a long text, stored as their count and one hash per block (`speed/<gate>/ids.txt`)."""

    def __init__(self, path: Path) -> None:
        lines = [ln for ln in path.read_text(encoding="ascii").split("\n") if ln and not ln.startswith("#")]
        self.count = int(lines[0].split()[1])
        self.blocks = [ln.split()[1] for ln in lines[1:]]

    def first_wrong_block(self, ids: list[int]) -> int | None:
        """None when `ids` are the expected ones; else the index of the first id of the first wrong block."""
        got = id_blocks(ids)
        if len(ids) == self.count and got == self.blocks:
            return None
        k = next(
            (i for i, (e, g) in enumerate(zip(self.blocks, got)) if e != g), min(len(got), len(self.blocks))
        )
        return k * BLOCK_IDS


class TrainCase:
    """One golden training case, read from `<root>/train/<name>/`."""

    def __init__(self, root: Path, name: str) -> None:
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

    def diagnostics(self) -> Diagnostics:
        return Diagnostics(self.dir)

    def corpus_text(self) -> str:
        return self.corpus_path.read_bytes().decode("utf-8")


class EncodeCase:
    """Golden encode case: a tokenizer (from a training case) and texts with their ids."""

    def __init__(self, root: Path, name: str) -> None:
        self.dir = root / "encode" / name
        meta = json.loads((self.dir / "tokenizer.json").read_text(encoding="utf-8"))
        self.train = TrainCase(root, meta["train_case"])
        self.special_tokens: list[str] = meta["special_tokens"]
        self.texts = parse_texts((self.dir / "texts.jsonl").read_text(encoding="utf-8"))


class SpeedTrainCase:
    """The training gate's check: its corpus is generated (too big to store), its first merges are here."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "speed" / "train"
        meta = json.loads((self.dir / "case.json").read_text(encoding="utf-8"))
        self.corpus: tuple = tuple(meta["corpus"])
        self.vocab_size: int = meta["vocab_size"]
        self.special_tokens: list[str] = meta["special_tokens"]
        self.merges = parse_merges((self.dir / "merges.txt").read_text(encoding="ascii"))

    def diagnostics(self) -> Diagnostics:
        return Diagnostics(self.dir)


def with_specials(vocab: dict[int, bytes], special_tokens: Iterable[str] | None) -> dict[int, bytes]:
    """The vocab a tokenizer holds: special tokens missing from it get the next free ids, in order."""
    vocab = dict(vocab)
    for special in dict.fromkeys(special_tokens or []):
        if special.encode("utf-8") not in vocab.values():
            vocab[max(vocab) + 1] = special.encode("utf-8")
    return vocab


def char_bpe_cases(root: Path) -> list[dict]:
    """Part 1's stored CharBPE.train cases, shortest text first."""
    return parse_jsonl((root / "char_bpe" / "train.jsonl").read_text(encoding="utf-8"))


def root(visibility: str) -> Path:
    """`public` or `hidden`."""
    return FIXTURES / visibility
