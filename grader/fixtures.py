"""Generate the golden fixtures of the graded suite: `make fixtures` (python -m grader.fixtures).

Every corpus and case is defined here, in code, so the fixtures are reproducible byte for byte:
running this again must leave `git diff data/fixtures` empty. The expected merges, vocabularies and
ids come from the trusted trainer and encoder in `grader.feedback` by default; `--engine solution`
computes them with the reference solution instead. The kit's tests run both and compare them with
the committed files, so two independent implementations vouch for every golden value.

Layout (see grader/feedback/golden.py for the file formats):
    data/fixtures/{public,hidden}/corpora/*.txt     small corpora, a few KB each
    data/fixtures/{public,hidden}/train/<case>/      case.json, merges.txt, vocab.txt
    data/fixtures/{public,hidden}/encode/<case>/     tokenizer.json, texts.jsonl
    data/fixtures/public/gpt2/<case>/                vocab.json, merges.txt, texts.jsonl (GPT-2 format)
    data/fixtures/calibration.json                   speed ratios, written by grader.calibration when
                                                     missing or with --calibrate (machine dependent)
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.feedback import golden
from grader.feedback.encoder import TrustedEncoder
from grader.feedback.gpt2 import render
from grader.feedback.trainer import read_corpus, train

EOT = "<|endoftext|>"


def _lines(*lines: str, times: int = 1) -> str:
    return "".join(line + "\n" for line in lines) * times


def _generated(kind: str, n_bytes: int, seed: int) -> str:
    from data.corpus import generate_text

    return generate_text(kind, n_bytes, seed)


# ---------------------------------------------------------------------------------------------
# Corpora. Each is small, and each is built to expose one rule: the comment says which.

PUBLIC_CORPORA = {
    # Repeated-pair words ("aaaa": merge non-overlapping, left to right), contractions, a story.
    "tiny_words.txt": lambda: _lines(
        "low low low low low lower lower widest widest widest newest newest newest newest",
        "aaaa aaaa aaa aaaaa abab abab ababab baba bababa",
        "the cat sat on the mat. the dog ate the hat. they're here, we'll see, I've won, it's done, don't",
        "She said: \"Look at the moon!\" -- and the moon looked back.",
        times=3) + _lines("low lowest lower; new newer newest", "aaaaaaaa abababab"),
    # Text glued to the special token on both sides: merges must not cross it.
    "specials.txt": lambda: "".join(
        f"once upon a time{EOT}there was a cat{EOT}cat{EOT}at the end.{EOT}\n{EOT}the cat sat{EOT}sat down\n"
        for _ in range(4)) + f"{EOT}{EOT}the end",
    # One special token is a prefix of another: the longest match wins.
    "overlap.txt": lambda: "".join(
        f"hi{EOT}{EOT}there{EOT}names <|user|>name: Ann<|user|>names <|user|> nameless{EOT}{EOT}{EOT}\n"
        for _ in range(5)),
    # Special tokens full of regex metacharacters: split on them literally.
    "metachar.txt": lambda: "".join(
        f"[SEP]Spell SEPARATE with a PEN.[SEP] (a|b)* is a regex; a|b or ab{EOT}price $5.00 ok\\n done\n"
        for _ in range(4)),
    # Old Mac line ends (a lone "\r") and Windows ones ("\r\n"): read the file without translation.
    "newlines_cr.txt": lambda: "".join(
        f"line {i}\rcarriage return\r\rnext\r\nwindows line\r\n\r\nend\r" for i in range(6)),
    # Characters that `regex`'s \p{L}/\p{N} and the standard `re` module classify differently.
    "unicode_numbers.txt": lambda: _lines(
        "x² + y² = z²; E = mc²; 10² = 100; H₂O and CO₂; ½ cup; Ⅻ o'clock",
        "snake_case_name = area_51 + __init__; x²y²z²",
        "²²² ₂₂ ½½ x²",
        times=4),
    # A slice of the generated corpus: English and Chinese stories, one special token.
    "generated_slice.txt": lambda: _generated("mixed", 40_000, 7),
}

HIDDEN_CORPORA = {
    "hidden_mixed.txt": lambda: _generated("mixed", 30_000, 23),
    "hidden_tricky.txt": lambda: "".join(
        f"<|a|><|a|>x²<|a|>y\r\rz_1 {EOT}[x]one[x] ab<|a|>ab\r\nabab²² the quick brown fox{EOT}jumps "
        f"over the lazy dog; x_{i}² = {i}½\n" for i in range(6)),
}


@dataclass(frozen=True)
class Train:
    name: str
    corpus: str
    vocab_size: int
    special_tokens: tuple[str, ...]
    about: str


PUBLIC_TRAIN = [
    Train("tiny_words", "tiny_words.txt", 300, (), "repeated-pair words, contractions, tie-breaks"),
    Train("early_stop", "tiny_words.txt", 5000, (), "vocab_size larger than possible: stop when no pair is left"),
    Train("specials", "specials.txt", 285, (EOT,), "text glued to a special token"),
    Train("overlap", "overlap.txt", 275, (EOT, EOT + EOT, "<|user|>", "<|user|>name"),
          "special tokens that are prefixes of others"),
    Train("metachar", "metachar.txt", 297, ("[SEP]", "(a|b)*", "$5.00", "\\n", EOT, "[SEP]"),
          "special tokens with regex metacharacters, one given twice"),
    Train("newlines_cr", "newlines_cr.txt", 286, (), "lone \\r and \\r\\n, read without translation"),
    Train("unicode_numbers", "unicode_numbers.txt", 300, (), "characters where `re` and `regex` differ"),
    Train("generated_500", "generated_slice.txt", 500, (EOT,), "40 KB of the generated corpus"),
]

HIDDEN_TRAIN = [
    Train("hidden_mixed", "hidden_mixed.txt", 600, (EOT, "<|pad|>"), "30 KB of other generated stories"),
    Train("hidden_tricky", "hidden_tricky.txt", 305, ("<|a|>", "<|a|><|a|>", "[x]", EOT),
          "everything tricky at once"),
]

_BASIC_TEXTS = [
    "", "a", "Hello, world!", "Once upon a time, there was a little girl named Lily.",
    "She said, \"I don't want to go!\" They'll see. It's 3:45 and I've got 1234567 coins.",
    "the the the the", "  leading and trailing spaces  ", "tab\tseparated\tvalues",
]
_SPECIAL_TEXTS = [
    EOT, f"a{EOT}b", f"{EOT}{EOT}", f"{EOT}{EOT}{EOT}", f"The end.{EOT}Once upon a time",
    f"<|endoftext|<|endoftext|>|>", f"{EOT[:-1]} is not a special token", f"\n{EOT}\n\n{EOT}",
]
_UNICODE_TEXTS = [
    "从前，有一只可爱的小猫，名叫小明。", "Zoë and José met Søren in the café.",
    "🙂 👍🏽 ❤️ 🇫🇷 👨‍👩‍👧", "line one\r\nline two\r\n", "lone\rcarriage\rreturns\r",
    "   many   spaces   \n\n\n  and\t\t tabs \u00a0 nbsp \u3000 ideographic",
    "x² + y² = z², ½, Ⅻ", "\x00\x01 control \x7f chars", "mixed 中文 and English 123 ok",
]

PUBLIC_ENCODE = {
    "basic": ("generated_500", (EOT, EOT + EOT), _BASIC_TEXTS),
    "specials": ("generated_500", (EOT, EOT + EOT), _SPECIAL_TEXTS),
    "unicode": ("generated_500", (EOT, EOT + EOT), _UNICODE_TEXTS),
}

HIDDEN_ENCODE = {
    "hidden_mixed": ("hidden_mixed", ("<|pad|>", EOT, "<|pad|><|pad|>", "<|new|>"), [
        "<|pad|><|pad|><|pad|>", f"<|new|>{EOT}<|pad|>", "Tim and Lily played with the ball.",
        "小红和小明一起去公园玩。", "  \r\n\r\n  ", "😊🌈 done", "<|pad|", "ab<|new|>cd",
    ]),
}

GPT2_FORMAT = {"generated_500": ("generated_500", _BASIC_TEXTS + _UNICODE_TEXTS + [EOT + "x"])}


# ---------------------------------------------------------------------------------------------
# Engines: who computes the expected values.

class TrustedEngine:
    """grader.feedback's slow but obviously correct trainer and encoder."""

    def train(self, path: Path, vocab_size: int, special_tokens: list[str]):
        return train(read_corpus(path), vocab_size, special_tokens)

    def encoder(self, vocab, merges, special_tokens):
        return TrustedEncoder(vocab, merges, special_tokens)


class SolutionEngine:
    """The reference solution (solution/bpe), imported in this process."""

    def __init__(self, parent: Path):
        # Imported under a private name: a `bpe` already imported in this process stays untouched.
        import importlib.util

        init = parent / "bpe" / "__init__.py"
        spec = importlib.util.spec_from_file_location("_bpe_fixture_engine", init,
                                                      submodule_search_locations=[str(init.parent)])
        self.bpe = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = self.bpe
        spec.loader.exec_module(self.bpe)

    def train(self, path: Path, vocab_size: int, special_tokens: list[str]):
        return self.bpe.train_bpe(path, vocab_size, special_tokens)

    def encoder(self, vocab, merges, special_tokens):
        return self.bpe.BPETokenizer(vocab, merges, special_tokens)


# ---------------------------------------------------------------------------------------------

def _write(path: Path, text: str, encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def _gpt2_vocab_json(vocab: dict[int, bytes]) -> str:
    rows = [f"  {json.dumps(render(token), ensure_ascii=False)}: {i}" for i, token in sorted(vocab.items())]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def generate_tree(out: Path, visibility: str, engine) -> None:
    corpora, trains, encodes = ((PUBLIC_CORPORA, PUBLIC_TRAIN, PUBLIC_ENCODE) if visibility == "public"
                                else (HIDDEN_CORPORA, HIDDEN_TRAIN, HIDDEN_ENCODE))
    root = out / visibility
    for name, make in corpora.items():
        _write(root / "corpora" / name, make())
    trained = {}
    for case in trains:
        specials = list(case.special_tokens)
        vocab, merges = engine.train(root / "corpora" / case.corpus, case.vocab_size, specials)
        trained[case.name] = (vocab, merges)
        meta = {"corpus": case.corpus, "vocab_size": case.vocab_size, "special_tokens": specials,
                "merges": len(merges), "stops_early": len(vocab) < case.vocab_size, "about": case.about}
        _write(root / "train" / case.name / "case.json", golden.dump_json(meta))
        _write(root / "train" / case.name / "merges.txt", golden.format_merges(merges), "ascii")
        _write(root / "train" / case.name / "vocab.txt", golden.format_vocab(vocab), "ascii")
    for name, (train_case, specials, texts) in encodes.items():
        vocab, merges = trained[train_case]
        tok = engine.encoder(vocab, merges, list(specials))
        _write(root / "encode" / name / "tokenizer.json",
               golden.dump_json({"train_case": train_case, "special_tokens": list(specials)}))
        _write(root / "encode" / name / "texts.jsonl", golden.format_texts([(t, tok.encode(t)) for t in texts]))
    if visibility == "public":
        for name, (train_case, texts) in GPT2_FORMAT.items():
            vocab, merges = trained[train_case]
            tok = engine.encoder(vocab, merges, [])
            _write(root / "gpt2" / name / "vocab.json", _gpt2_vocab_json(vocab))
            _write(root / "gpt2" / name / "merges.txt",
                   "#version: 0.2\n" + "".join(f"{render(a)} {render(b)}\n" for a, b in merges))
            _write(root / "gpt2" / name / "texts.jsonl", golden.format_texts([(t, tok.encode(t)) for t in texts]))


def generate(out: Path, engine) -> None:
    """Write public/ and hidden/ under `out`, replacing what was there (and nothing else)."""
    for visibility in ("public", "hidden"):
        with tempfile.TemporaryDirectory(dir=out.parent if out.exists() else None) as tmp:
            generate_tree(Path(tmp), visibility, engine)
            target = out / visibility
            if target.exists():
                shutil.rmtree(target)
            out.mkdir(parents=True, exist_ok=True)
            shutil.move(str(Path(tmp) / visibility), str(target))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.fixtures", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=golden.FIXTURES, help="default: data/fixtures")
    parser.add_argument("--engine", choices=("trusted", "solution"), default="trusted")
    parser.add_argument("--calibrate", action="store_true",
                        help="re-measure the speed ratio in calibration.json (done anyway when it is missing)")
    parser.add_argument("--no-calibration", action="store_true", help="never measure the speed ratio")
    args = parser.parse_args(argv)
    solution = Path(__file__).resolve().parents[1] / "solution"
    if args.engine == "solution":
        if not (solution / "bpe").is_dir():
            print(f"error: {solution / 'bpe'} not found (the reference is not part of the handout)", file=sys.stderr)
            return 1
        engine = SolutionEngine(solution)
    else:
        engine = TrustedEngine()
    try:
        generate(args.out, engine)
    except OSError as error:
        print(f"error: cannot write the fixtures to {args.out}: {error}", file=sys.stderr)
        return 1
    print(f"fixtures written to {args.out}")
    target = args.out / "calibration.json"
    wanted = args.calibrate or not target.exists()
    if wanted and not args.no_calibration and (solution / "bpe").is_dir():
        from grader import calibration

        ratio = calibration.record(solution, target)
        print(f"calibration: reference / yardstick = {ratio:.3f} (training), written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
