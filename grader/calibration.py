"""Measuring the machine for the speed budgets and time limits (grader/budgets.py holds the rules).

Every budget is a multiple of something measured right now, the same way:
- with the reference solution present (the instructor's kit, the grading image): its own time on
  the very same workload, in its own sandboxed worker;
- without it (the student handout): a built-in yardstick workload timed in this process, scaled by
  the reference/yardstick ratio recorded when the fixtures were generated (calibration.json).
The per-test limits scale the reference's recorded time per test (test_times.json) by the same
yardstick. This module reads and measures, below the suite (whose plugin sets each test's limits
from it) and above the sandbox (it runs the reference in a worker); `bpe-kit fixtures` records
both files with grader/calibration_record.py, above the suite (it grades the reference to time
each test).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from data.corpus import EOT, generate_text

from .bpe_facts import golden
from .budgets import (
    ENCODE_TEXT,
    ENCODE_TRAIN_CASE,
    FACTORS,
    STREAM_FILE,
    TRAIN_CORPUS,
    TRAIN_VOCAB_SIZE,
    YARDSTICK_ROUNDS,
    YARDSTICK_TEXT,
    Budget,
    PerTestLimits,
    estimated_budget,
    measured_budget,
    scaled_limits,
)
from .errors import GradingAbort
from .measured import run_file, shared, shared_text
from .paths import CALIBRATION_FILE, SOLUTION, TEST_TIMES_FILE
from .sandbox.proxy import connect

if TYPE_CHECKING:
    from collections.abc import Iterator

    from grader.sandbox.kit import Bpe, StudentObject


@functools.lru_cache(maxsize=8)
def generated(spec: tuple[str, int, int]) -> str:
    """A generated text (deterministic: kind, size, seed), made once per process, and once per
    run where the run shares its figures."""
    return shared_text("-".join(map(str, spec)), lambda: generate_text(*spec))


def write_training_corpus(directory: Path) -> Path:
    """The ~1 MB training workload as a file (whole documents, so it ends with a special token)."""
    path = Path(directory) / "speed_corpus_1mb.txt"
    if not path.exists():
        path.write_bytes(generated(TRAIN_CORPUS).encode("utf-8"))
    return path


def stream_text() -> str:
    """The memory gate's text: STREAM_FILE's stories (those of data/corpus/train.txt), whose second
    half holds no special token (each is a blank line there). Streams with and without special
    tokens are both bounded: an encoder that holds its text until a special token comes holds
    a whole megabyte."""
    text = generated(STREAM_FILE)
    half = len(text) // 2
    return text[:half] + text[half:].replace(EOT, "\n\n")


def write_stream_file(directory: Path) -> Path:
    """The memory gate's multi-MB file (`stream_text`)."""
    path = Path(directory) / f"stream_{STREAM_FILE[1] // 1_000_000}mb.txt"
    if not path.exists():
        path.write_bytes(stream_text().encode("utf-8"))
    return path


def encode_tokenizer_parts() -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], list[str]]:
    case = golden.TrainCase(golden.root("public"), ENCODE_TRAIN_CASE)
    return case.vocab, case.merges, [EOT]


def reference_dir() -> Path | None:
    """The reference solution's parent folder, when this kit has it (never in the handout)."""
    return SOLUTION if (SOLUTION / "bpe" / "__init__.py").is_file() else None


def yardstick_workload(text: str, rounds: int = YARDSTICK_ROUNDS) -> int:
    """A fixed pure-Python workload of the same character as BPE training: dicts keyed by tuples.

    Count the words once, then, `rounds` times over, tally every adjacent pair of bytes in every
    distinct word, weighted by the word's count. (It trains nothing: it is only a stopwatch.)
    """
    words: dict[bytes, int] = {}
    for word in text.encode("utf-8").split():
        words[word] = words.get(word, 0) + 1
    checksum = 0
    for _round in range(rounds):
        tally: dict[tuple[int, int], int] = {}
        for word, n in words.items():
            for left, right in itertools.pairwise(word):
                tally[left, right] = tally.get((left, right), 0) + n
        checksum += len(tally)
    return checksum


def yardstick_seconds(repeat: int = 3) -> float:
    """CPU time of `yardstick_workload` on a fixed generated text, best of `repeat`."""
    text = generated(YARDSTICK_TEXT)
    best = float("inf")
    for _repeat in range(repeat):
        start = time.process_time()
        yardstick_workload(text)
        best = min(best, time.process_time() - start)
    return best


def time_training(bpe: Bpe, corpus: Path) -> float:
    bpe.train_bpe(Path(corpus), TRAIN_VOCAB_SIZE, [EOT])
    return bpe.kit.last_call.cpu_s


def time_encoding(bpe: Bpe, tok: StudentObject, text: str) -> float:
    tok.encode(text)
    return bpe.kit.last_call.cpu_s


def measure_reference(corpus: Path, text: str, repeat: int = 4) -> dict[str, float]:
    """Best-of-`repeat` CPU seconds of the reference on both workloads, in a sandboxed worker.

    Best of several, because a single run's time moves by as much as a budget's margin near a
    submission's own time (bench/CALIBRATION.md). Encoding is timed warm: its first call, which
    fills the pre-token cache, is left out."""
    with connect(reference_dir()) as ref:
        train_s = min(time_training(ref, corpus) for _ in range(repeat))
        tok = ref.BPETokenizer(*encode_tokenizer_parts())
        tok.encode(text)  # warm-up: lazy set-up (a pattern's compile) and the pre-token cache
        encode_s = min(time_encoding(ref, tok, text) for _ in range(repeat))
    return {"train": train_s, "encode": encode_s}


_cache: dict[str, Budget] = {}


def budgets(scratch: Path) -> dict[str, Budget]:
    """Both budgets, measured once per grading, or once per run where the run shares its figures
    (grader/measured.py: a farm, the kit's tests): the reference costs about a second."""
    if _cache:
        return dict(_cache)
    measured = None
    if reference_dir() is not None:
        measured = shared(f"reference {_reference_digest()}", lambda: _measure_or_none(scratch))
    if measured is not None:
        for gate, seconds in measured.items():
            _cache[gate] = measured_budget(gate, seconds)
    else:
        ratios = load_ratios()
        yard = shared("yardstick 3", yardstick_seconds)
        for gate in FACTORS:
            _cache[gate] = estimated_budget(gate, ratios[gate], yard)
    return dict(_cache)


def measure_first(scratch: Path) -> None:
    """Take a run's shared figures (grader/measured.py) now, before its gradings start.

    A run measures the machine once and every student of the run meets that figure, so it must be
    taken on a quiet machine, not while the run's first gradings run beside it: a figure taken
    under load loosens every budget of the run. A run that shares its figures (a farm, the kit's
    tests) calls this while nothing of it is running yet."""
    if run_file() is None:
        return
    per_test_limits()  # the yardstick that scales the per-test limits
    budgets(scratch)  # the reference on the gates' workloads (or its estimate from a yardstick)
    _cache.clear()  # the figures are in the run's file; this process reads them from there


def _measure_or_none(scratch: Path) -> dict[str, float] | None:
    try:
        return measure_reference(write_training_corpus(scratch), generated(ENCODE_TEXT))
    except (Exception, GradingAbort):  # never fail a student because the reference could not run
        return None


def _reference_digest() -> str:
    """The reference's sources, hashed: a run's figure is for the reference it measured."""
    digest = hashlib.sha256()
    for path in sorted((reference_dir() / "bpe").rglob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def load_ratios() -> dict[str, float]:
    data = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
    return {gate: data[gate]["reference_over_yardstick"] for gate in FACTORS}


def per_test_limits(path: Path = TEST_TIMES_FILE) -> PerTestLimits | None:
    """The per-test limits, or None without a readable fixture (then only the wall-clock timeouts hold)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        reference = {str(k): float(v) for k, v in data["tests"].items()}
        calls = {str(k): float(v) for k, v in data.get("calls", {}).items()}
        recorded = float(data["yardstick_cpu_s"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    yard = shared("yardstick 2", lambda: yardstick_seconds(repeat=2)) if recorded > 0 else 0.0
    return scaled_limits(reference, calls, yard, recorded)


def public_test_times(text: str) -> str:
    """test_times.json without the hidden tests, for the handout: the student's own grader stops an
    endless loop as Gradescope's does, and learns no hidden test's name."""
    data = json.loads(text)
    for table in ("tests", "calls"):
        data[table] = {k: v for k, v in data.get(table, {}).items() if not k.startswith("test_hidden_")}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


@contextlib.contextmanager
def reset() -> Iterator[None]:
    """For tests: forget cached budgets before and after."""
    _cache.clear()
    try:
        yield
    finally:
        _cache.clear()
