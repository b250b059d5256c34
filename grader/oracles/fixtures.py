"""Generate the golden fixtures of the graded suite: `make fixtures` (python -m grader.oracles.fixtures).

Every corpus and case is defined in code (grader/oracles/cases.py), so the fixtures are reproducible byte for byte:
running this again must leave `git diff data/fixtures` empty. The expected merges, vocabularies and
ids come from the trusted trainer and encoder in `grader.oracles` by default (grader/oracles/engines.py); `--engine solution`
computes them with the reference solution instead. The failure-message data (steps.txt, mistakes/)
always comes from the trusted trainer. None of these trainers is shipped with the handout: the
public graded tests only read these files. The kit's tests run both and compare them with
the committed files, so two independent implementations vouch for every golden value.

Layout (see grader/bpe_facts/golden.py for the file formats):
    data/fixtures/{public,hidden}/corpora/*.txt     small corpora, a few KB each
    data/fixtures/{public,hidden}/train/<case>/      case.json, merges.txt, vocab.txt, and for the
                                                     failure messages steps.txt and mistakes/<id>.txt
    data/fixtures/{public,hidden}/encode/<case>/     tokenizer.json, texts.jsonl
    data/fixtures/public/gpt2/<case>/                vocab.json, merges.txt, texts.jsonl (GPT-2 format)
    data/fixtures/public/char_bpe/train.jsonl        CharBPE.train cases for Part 1
    data/fixtures/public/speed/                      what the efficiency gates check their answers with
    data/fixtures/test_times.json                    the reference's CPU seconds per graded test (the
                                                     per-test limits), written with calibration.json
    data/fixtures/calibration.json                   speed ratios, written by grader.calibration_record when
                                                     missing or with --calibrate (machine dependent)
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from data.corpus import EOT
from grader import budgets, calibration, calibration_record
from grader.bpe_facts import golden
from grader.bpe_facts.gpt2 import render
from grader.i18n import N_
from grader.oracles import recorder
from grader.oracles.cases import (
    CHAR_BPE_CASES,
    GPT2_FORMAT,
    GPT2_RENUMBERED,
    HIDDEN_CORPORA,
    HIDDEN_ENCODE,
    HIDDEN_TRAIN,
    PUBLIC_CORPORA,
    PUBLIC_ENCODE,
    PUBLIC_TRAIN,
    Train,
)
from grader.oracles.engines import Engine, Model, SolutionEngine, TrustedEngine
from grader.oracles.trainer import read_corpus
from grader.paths import SOLUTION, TEST_TIMES_FILE

if TYPE_CHECKING:
    from collections.abc import Iterable


def _renumbered(vocab: dict[int, bytes], seed: int) -> tuple[dict[int, bytes], list[int]]:
    """The vocab with each token moved to another id (ids up to 3x the vocab's size, so with gaps),
    and the order its vocab.json lists them in (shuffled)."""
    rng = random.Random(seed)
    tokens = [vocab[i] for i in sorted(vocab)]
    ids = rng.sample(range(3 * len(tokens)), len(tokens))
    renumbered = dict(zip(ids, tokens))
    order = list(renumbered)
    rng.shuffle(order)
    return renumbered, order


def _merges_with_blank_lines(merges: list[tuple[bytes, bytes]]) -> str:
    lines = [f"{render(a)} {render(b)}\n" for a, b in merges]
    for at in range(len(lines) - len(lines) % 50, 0, -50):  # a blank line after every 50 merges
        lines.insert(at, "\n")
    return "#version: 0.2\n" + "".join(lines) + "\n"


def _write(path: Path, text: str, encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def _gpt2_vocab_json(vocab: dict[int, bytes]) -> str:
    rows = [f"  {json.dumps(render(token), ensure_ascii=False)}: {i}" for i, token in sorted(vocab.items())]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def write_train_case(root: Path, case: Train, engine: Engine) -> tuple[dict, list]:
    """One training case's folder under root/train (its corpus already in root/corpora)."""
    specials = list(case.special_tokens)
    vocab, merges = engine.train(root / "corpora" / case.corpus, case.vocab_size, specials)
    meta = {
        "corpus": case.corpus,
        "vocab_size": case.vocab_size,
        "special_tokens": specials,
        "merges": len(merges),
        "stops_early": len(vocab) < case.vocab_size,
        "about": case.about,
    }
    _write(root / "train" / case.name / "case.json", golden.dump_json(meta))
    _write(root / "train" / case.name / "merges.txt", golden.format_merges(merges), "ascii")
    _write(root / "train" / case.name / "vocab.txt", golden.format_vocab(vocab), "ascii")
    _write_diagnostics(
        root / "train" / case.name,
        read_corpus(root / "corpora" / case.corpus),
        case.vocab_size,
        specials,
        merges,
    )
    return vocab, merges


def write_encode_case(
    root: Path,
    name: str,
    model: Model,
    train_case: str,
    specials: Iterable[str],
    texts: Iterable[str],
    engine: Engine,
) -> None:
    """One encoding case's folder under root/encode: the expected ids of `texts`."""
    tok = engine.encoder(*model, list(specials))
    _write(
        root / "encode" / name / "tokenizer.json",
        golden.dump_json({"train_case": train_case, "special_tokens": list(specials)}),
    )
    _write(root / "encode" / name / "texts.jsonl", golden.format_texts([(t, tok.encode(t)) for t in texts]))


def generate_tree(out: Path, visibility: str, engine: Engine) -> None:
    corpora, trains, encodes = (
        (PUBLIC_CORPORA, PUBLIC_TRAIN, PUBLIC_ENCODE)
        if visibility == "public"
        else (HIDDEN_CORPORA, HIDDEN_TRAIN, HIDDEN_ENCODE)
    )
    root = out / visibility
    for name, make in corpora.items():
        _write(root / "corpora" / name, make())
    trained = {case.name: write_train_case(root, case, engine) for case in trains}
    for name, (train_case, specials, texts) in encodes.items():
        write_encode_case(root, name, trained[train_case], train_case, specials, texts, engine)
    if visibility == "public":
        for name, (train_case, texts) in GPT2_FORMAT.items():
            vocab, merges = trained[train_case]
            tok = engine.encoder(vocab, merges, [])
            _write(root / "gpt2" / name / "vocab.json", _gpt2_vocab_json(vocab))
            _write(
                root / "gpt2" / name / "merges.txt",
                "#version: 0.2\n" + "".join(f"{render(a)} {render(b)}\n" for a, b in merges),
            )
            _write(
                root / "gpt2" / name / "texts.jsonl", golden.format_texts([(t, tok.encode(t)) for t in texts])
            )
        for name, (train_case, texts, seed) in GPT2_RENUMBERED.items():
            vocab, merges = trained[train_case]
            renumbered, order = _renumbered(vocab, seed)
            tok = engine.encoder(renumbered, merges, [])
            rows = [f"  {json.dumps(render(renumbered[i]), ensure_ascii=False)}: {i}" for i in order]
            _write(root / "gpt2" / name / "vocab.json", "{\n" + ",\n".join(rows) + "\n}\n")
            _write(root / "gpt2" / name / "merges.txt", _merges_with_blank_lines(merges))
            _write(
                root / "gpt2" / name / "texts.jsonl", golden.format_texts([(t, tok.encode(t)) for t in texts])
            )
        rows = []
        for text, num_merges in CHAR_BPE_CASES:
            vocab, merges = engine.char_train(text, num_merges)
            rows.append({"merges": merges, "num_merges": num_merges, "text": text, "vocab": vocab})
        _write(root / "char_bpe" / "train.jsonl", golden.format_jsonl(rows))
        generate_speed(root / "speed", engine, trained[budgets.ENCODE_TRAIN_CASE])


_diagnostics_memo: dict[tuple, tuple[dict, list]] = {}


def _write_diagnostics(
    folder: Path, text: str, vocab_size: int, specials: list[str], merges: list, max_merges: int | None = None
) -> None:
    """steps.txt and mistakes/<id>.txt: what the failure messages read (see grader.checks.messages).
    `max_merges`: each mistake's first merges only, as many as `merges` holds (a case that checks
    only its first merges).

    They depend only on the corpus and the expected merges, so a second engine in the same process
    (the kit's tests run both) reuses them instead of retraining every mistake.
    """
    key = (text, vocab_size, tuple(specials), tuple(merges), max_merges)
    if key not in _diagnostics_memo:
        wrong = recorder.mistakes(text, vocab_size, specials, merges, max_merges)
        _diagnostics_memo[key] = (wrong, recorder.steps(text, specials, merges, wrong))
    wrong, steps = _diagnostics_memo[key]
    _write(folder / "steps.txt", golden.format_steps(steps), "ascii")
    for key, wrong_merges in wrong.items():
        _write(folder / "mistakes" / f"{key}.txt", golden.format_merges(wrong_merges), "ascii")


SPEED_CHECKED_MERGES = 60  # the training gate compares the first merges of its run with these


def generate_speed(out: Path, engine: Engine, encode_model: Model) -> None:
    """The efficiency gates' expected answers, for the workloads of grader/budgets.py."""
    text = calibration.generated(budgets.TRAIN_CORPUS)
    specials = [EOT]
    merges = engine.first_merges(text, budgets.TRAIN_VOCAB_SIZE, specials, SPEED_CHECKED_MERGES)
    meta = {
        "corpus": list(budgets.TRAIN_CORPUS),
        "vocab_size": budgets.TRAIN_VOCAB_SIZE,
        "special_tokens": specials,
        "merges": len(merges),
        "about": N_("the first merges of the training speed gate's run"),
    }
    _write(out / "train" / "case.json", golden.dump_json(meta))
    _write(out / "train" / "merges.txt", golden.format_merges(merges), "ascii")
    # Each mistake's first merges only (its whole training on 1 MB would take minutes): the gate
    # names the mistake that alone makes the first merges it checks (tests/graded/test_efficiency.py).
    _write_diagnostics(out / "train", text, budgets.TRAIN_VOCAB_SIZE, specials, merges, len(merges))
    tok = engine.encoder(*encode_model, [EOT])  # as calibration.encode_tokenizer_parts() builds it
    for gate, spec, text in (
        ("encode", budgets.ENCODE_TEXT, calibration.generated(budgets.ENCODE_TEXT)),
        ("stream", budgets.STREAM_FILE, calibration.stream_text()),
    ):
        about = f"{gate} gate: generate_text{spec!r}, tokenizer {budgets.ENCODE_TRAIN_CASE} + {EOT}"
        _write(out / gate / "ids.txt", golden.format_id_digest(about, tok.encode(text)), "ascii")


def generate(out: Path, engine: Engine) -> None:
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
    parser = argparse.ArgumentParser(
        prog="python -m grader.oracles.fixtures", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=golden.FIXTURES, help="default: data/fixtures")
    parser.add_argument("--engine", choices=("trusted", "solution"), default="trusted")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="re-measure the speed ratio in calibration.json (done anyway when it is missing)",
    )
    parser.add_argument("--no-calibration", action="store_true", help="never measure the speed ratio")
    args = parser.parse_args(argv)
    solution = SOLUTION
    if args.engine == "solution":
        if not (solution / "bpe").is_dir():
            print(
                f"error: {solution / 'bpe'} not found (the reference is not part of the handout)",
                file=sys.stderr,
            )
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
        ratio = calibration_record.record(solution, target)
        print(f"calibration: reference / yardstick = {ratio:.3f} (training), written to {target}")
        timed = calibration_record.record_test_times(solution, args.out / TEST_TIMES_FILE.name)
        print(f"per-test limits: the reference's CPU time in {timed} graded tests, written beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
