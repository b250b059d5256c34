"""Speed budgets for the efficiency gates, calibrated on this machine in this run.

A fixed number of seconds would pass a slow submission on a fast machine and fail a good one on a
busy grader. So every budget is a multiple of something measured right now, the same way:
- with the reference solution present (the instructor's kit, the grading image): its own time on
  the very same workload, in its own sandboxed worker;
- without it (the student handout): a built-in yardstick workload timed in this process, scaled by
  the reference/yardstick ratio recorded when the fixtures were generated (calibration.json).

The factors are chosen from measurements of throwaway trainers (see `FACTORS`): a naive trainer
that recounts every pair at every merge overshoots the training budget about 4x, while incremental
trainers (a plain linear scan for the max, or a heap) meet it with 2.4x to 3x to spare. An encoder
that replays every merge over the whole text overshoots the encode budget about 2.3x; one without a
pre-token cache meets it with about 2x to spare.
Times are CPU seconds of the worker (children included), which a busy machine disturbs far less
than wall time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from data.corpus import EOT

from .i18n import _
from .measured import run_file, shared, shared_text
from .paths import KIT_ROOT as KIT

CALIBRATION_FILE = KIT / "data" / "fixtures" / "calibration.json"
TEST_TIMES_FILE = KIT / "data" / "fixtures" / "test_times.json"

# Measured on the kit's machine (CPU seconds as the gates measure them, reference solution = 1), with
# the textbook reference (rank-based merging with a pre-token cache, `regex` pre-tokenization), the
# machine busy (load 12-15 on 2 cores: absolute times up to 2x a quiet run's, ratios steadier).
# Re-derive these factors when the reference gets faster or slower: tests/kit/test_suite_graded.py
# fails when they drift.
#   training, 1 MB, vocab 1000: reference 1 (0.32-0.41 s busy; 0.15 s quiet), catalogue variants
#     linear 4.9-5.3 and heap 6.2-6.7, incremental counts + linear max (tests/kit/suite_variants.py)
#     5.0-5.8, naive recount of all pairs at every merge (slow_naive_trainer) 67-72
#   encoding, 1 MB, 243 merges: reference 1 (0.13-0.19 s busy), catalogue variants linear 0.9 and
#     heap 1.3, no pre-token cache (suite_variants.py) 14-17, replay all merges (slow_replay_encoder)
#     63-71. (The former reference with its fast paths, now bench/fast_paths: 0.8-1.2 on encoding,
#     0.8-1.1 on training: the cache, not the fast paths, carries this workload.)
# Each factor sits between the fastest wrong-by-design submission and the slowest right one: 16
# leaves the heap trainer 2.4x and overshoots the naive one 4.2x. The reference's encode time
# varies more within a full grade than its training time (0.25-0.44 s on the same machine in one
# afternoon: its best of two runs is a warm-cache run), so the replaying encoder was seen as low as
# 31x it in a full grade; at 30 it then passed by noise (1.03x, a failure only by luck); it is now
# timed warm and best of four (`measure_reference` says why). 24 is about
# the geometric mean of the uncached encoder (14-17) and that low replay figure (31): it leaves the
# uncached encoder 1.4x to 1.7x and overshoots the replaying one 1.3x to 2.9x.
FACTORS = {"train": 16.0, "encode": 24.0}
# A run that has used ABORT_AT x its budget of CPU time is stopped (grader/checks/speed.py): it
# cannot pass anyway. With the factors above this stops the naive trainer (at 24x the reference)
# at about half of what it needs, so it fails the same way, in the same words, on every run; the
# replaying encoder (31-71x) is stopped at 36x on most runs and otherwise fails at over 1.3x its
# budget: the score is the same either way, the words may differ. The stop is on CPU time like the budget: a stop on wall
# time moves with the machine's load, and a submission near it would end in other words on a busier run.
ABORT_AT = 1.5

TRAIN_CORPUS = ("mixed", 1_000_000, 101)  # data.corpus.generate_text(kind, n_bytes, seed)
TRAIN_VOCAB_SIZE = 1000
ENCODE_TEXT = ("mixed", 1_000_000, 31)
STREAM_FILE = ("mixed", 2_000_000, 1)
ENCODE_TRAIN_CASE = "generated_500"  # tokenizer: this public fixture's vocab and merges, + EOT
YARDSTICK_TEXT = ("en", 400_000, 3)
YARDSTICK_ROUNDS = 100


@dataclass(frozen=True)
class Budget:
    seconds: float
    basis: str  # one sentence for the student: where the number comes from

    @property
    def abort_after(self) -> float:
        return self.seconds * ABORT_AT


@functools.lru_cache(maxsize=8)
def generated(spec: tuple[str, int, int]) -> str:
    """A generated text (deterministic: kind, size, seed), made once per process, and once per
    run where the run shares its figures."""
    from data.corpus import generate_text

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


def encode_tokenizer_parts():
    from grader.checks import golden

    case = golden.TrainCase(golden.root("public"), ENCODE_TRAIN_CASE)
    return case.vocab, case.merges, [EOT]


def reference_dir() -> Path | None:
    """The reference solution's parent folder, when this kit has it (never in the handout)."""
    return KIT / "solution" if (KIT / "solution" / "bpe" / "__init__.py").is_file() else None


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


def time_training(bpe, corpus: Path) -> float:
    bpe.train_bpe(Path(corpus), TRAIN_VOCAB_SIZE, [EOT])
    return bpe.kit.last_call.cpu_s


def time_encoding(bpe, tok, text: str) -> float:
    tok.encode(text)
    return bpe.kit.last_call.cpu_s


def measure_reference(corpus: Path, text: str, repeat: int = 4) -> dict[str, float]:
    """Best-of-`repeat` CPU seconds of the reference on both workloads, in a sandboxed worker.

    One run of either takes 0.16 s to 0.30 s of CPU on a quiet machine, and best of two moved a
    budget from run to run by as much: enough to pass or fail a submission near its budget (a CS336
    trainer at 0.77x of one run's budget was at 1.15x of the next's). Best of four: 0.17-0.20 s for
    training over five fresh workers. Encoding is timed warm: its first call, which fills the
    pre-token cache, is left out."""
    from grader.sandbox.proxy import connect

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
            _cache[gate] = Budget(
                FACTORS[gate] * seconds,
                _(
                    "{factor:g} x the reference solution's {seconds:.2f} s, measured on this machine in this run"
                ).format(factor=FACTORS[gate], seconds=seconds),
            )
    else:
        ratios = load_ratios()
        yard = shared("yardstick 3", yardstick_seconds)
        for gate in FACTORS:
            seconds = yard * ratios[gate]
            _cache[gate] = Budget(
                FACTORS[gate] * seconds,
                _(
                    "{factor:g} x the reference solution's estimated {seconds:.2f} s on this machine (from a "
                    "{yard:.2f} s yardstick timed in this run)"
                ).format(factor=FACTORS[gate], seconds=seconds, yard=yard),
            )
    return dict(_cache)


def measure_first(scratch: Path) -> None:
    """Take a run's shared figures (grader/measured.py) now, before its gradings start.

    A run measures the machine once and every student of the run meets that figure, so it must be
    taken on a quiet machine. Left to the run's first grading, it was taken while other gradings
    ran beside it: a run of the kit's tests once timed the reference's encode at 0.27 s (0.16-0.19 s
    on a quiet machine), and under budgets 1.5x too loose the replaying encoder passed. A run that
    shares its figures (a farm, the kit's tests) calls this while nothing of it is running yet."""
    if run_file() is None:
        return
    per_test_limits()  # the yardstick that scales the per-test limits
    budgets(scratch)  # the reference on the gates' workloads (or its estimate from a yardstick)
    _cache.clear()  # the figures are in the run's file; this process reads them from there


def _measure_or_none(scratch: Path) -> dict[str, float] | None:
    from grader.errors import GradingAbort

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


def record(solution_parent: Path, out: Path = CALIBRATION_FILE) -> float:
    """Measure reference/yardstick ratios and store them (run by `make fixtures`)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        measured = measure_reference(write_training_corpus(Path(tmp)), generated(ENCODE_TEXT), repeat=3)
    yard = yardstick_seconds(repeat=5)
    data = {
        gate: {
            "reference_cpu_s": round(seconds, 4),
            "yardstick_cpu_s": round(yard, 4),
            "reference_over_yardstick": round(seconds / yard, 4),
        }
        for gate, seconds in measured.items()
    }
    data["note"] = (
        "Written by `bpe-kit fixtures` (grader/calibration.py); machine dependent, "
        "so not part of the byte-identical fixtures."
    )
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return data["train"]["reference_over_yardstick"]


# ------------------------------------------------------------------------ per-test time limits
# Each graded test's calls may use, together, TEST_FACTOR x the CPU seconds the reference solution's
# calls used in that test (recorded by `bpe-kit fixtures` in test_times.json, scaled to this machine
# by the yardstick); and no single call more than CALL_FACTOR x the reference's slowest call in that
# test. Both get allowances on top: CALL_ALLOWANCE_S for every call the test has made (this one
# included), and CHILD_ALLOWANCE_S for every process a call had running (up to MAX_CHILDREN);
# a slow import (over IMPORT_NOTED_S) is added once to a call that ran any (per_test.TestLimits.children_allowance).
# Why per call: a property test makes a hundred small calls, and a first call that loops for ever
# is stopped after a second or two, not after the share of all hundred.
# The allowances pay what the reference never pays: a first compile of a pattern, a moment of
# noise; and a multiprocessing pool, whose spawn or forkserver children each start Python and
# import `bpe` (about 0.2 s of CPU each, measured on the catalogue's pool_spawn), so a pool of 16 on
# a big machine is paid for as well as one of 2. They grow on a machine slower than the recording
# one (and never shrink on a faster one).
# Neither a test's time nor a call's holds the submission's import (IMPORT_CPU_S below). A call's
# factor is the larger because the reference's calls on these small inputs take one to four /proc
# ticks (0.01-0.04 s), and a correct naive trainer (the catalogue's slow_naive_trainer) takes up to
# ~70x that on one of them: CALL_FACTOR 100 leaves it
# under a quarter of its limit, and a submission whose every call loops for ever grades in about 2x a
# reference grade. `python bench/run.py --only limits` measures both, on the catalogue's slow rows
# and on loop_forever.
# CPU time, not wall time: a busy machine stretches wall time several-fold but CPU time barely, so
# the limit never fails correct code because of load; the test's wall-clock timeout stays, only as
# a backstop for a call that waits (and a call whose CPU time stands still is stopped sooner:
# grader/sandbox/process.IDLE_S).
# Why a recorded fixture and not the reference measured in this run, as the speed gates do: a
# per-test figure needs the reference run through every test, which would double every grade; one
# recorded run, rescaled by a 0.2 s yardstick, costs nothing. The speed gates' large workloads,
# where correct but slow code uses up to ~70x the reference, run under their own budgets
# (`bpe.kit.timeout`), not under these limits.
TEST_FACTOR = 25.0
# The submission's import is no test's time: every test's fresh worker imports it before the test's
# limits start (session.Session.prepare). It has a limit of its own, generous because a package may
# rightly import a heavy library (a CS336 repository's tests/adapters.py imports torch: about 3.3 s
# of CPU), scaled to the machine like the limits above. An import over IMPORT_NOTED_S is named once
# in the report's header (grader/report.py): it costs no points, but the student waits for it once
# per test; under it (the reference imports in about 0.1 s) it is not worth a line.
IMPORT_CPU_S = 60.0
IMPORT_NOTED_S = 1.0
CALL_FACTOR = 100.0
CALL_ALLOWANCE_S = 0.5
CHILD_ALLOWANCE_S = 0.5
MAX_CHILDREN = 32  # a fork bomb's thousand children buy no more time than a pool of 32


@dataclass(frozen=True)
class PerTestLimits:
    """CPU-second limits per graded test (keyed `file.py::test_name[params]`), before the
    allowances; None for a test the fixture does not know (a test added since it was recorded keeps
    only its wall-clock timeout). `calls` holds the reference's slowest call per test: empty in a
    fixture older than it, and then no call has a limit of its own."""

    reference: dict[str, float]
    scale: float  # this machine's yardstick over the recorded one
    calls: dict[str, float] = field(default_factory=dict)

    @staticmethod
    def _lookup(table: dict[str, float], key: str) -> float | None:
        found = table.get(key)
        return table.get(key.split("[", 1)[0]) if found is None else found

    def seconds(self, key: str) -> float | None:
        ref = self._lookup(self.reference, key)
        return None if ref is None else TEST_FACTOR * ref * self.scale

    def call_seconds(self, key: str) -> float | None:
        """The limit of one call in this test, before its allowances."""
        ref = self._lookup(self.calls, key)
        return None if ref is None else CALL_FACTOR * ref * self.scale

    def import_seconds(self) -> float:
        """The CPU seconds the submission's import may use on this machine (never fewer than IMPORT_CPU_S)."""
        return IMPORT_CPU_S * max(1.0, self.scale)

    def allowances(self) -> tuple[float, float]:
        """(CPU seconds per call, per process a call runs) on this machine."""
        grow = max(1.0, self.scale)
        return CALL_ALLOWANCE_S * grow, CHILD_ALLOWANCE_S * grow

    def _plus(self) -> str:
        per_call, per_child = self.allowances()
        return _("plus {per_call:.2g} s per call and {per_child:.2g} s per process it runs").format(
            per_call=per_call, per_child=per_child
        )

    def basis(self, key: str) -> str:
        ref = self._lookup(self.reference, key) or 0.0
        return _(
            "{factor:g} x the reference solution's {seconds} for this test on this machine, {plus}"
        ).format(factor=TEST_FACTOR, seconds=_seconds(ref * self.scale), plus=self._plus())

    def call_basis(self, key: str) -> str:
        ref = self._lookup(self.calls, key) or 0.0
        return _(
            "{factor:g} x the reference solution's slowest call in this test, {seconds} on this machine, {plus}"
        ).format(factor=CALL_FACTOR, seconds=_seconds(ref * self.scale), plus=self._plus())


def _seconds(value: float) -> str:
    """A recorded CPU time in words: /proc counts 10 ms ticks, so 0.00 means under one."""
    return _("{seconds:.2f} s").format(seconds=value) if value >= 0.01 else _("under 0.01 s")


def per_test_limits(path: Path = TEST_TIMES_FILE) -> PerTestLimits | None:
    """The per-test limits, or None without a readable fixture (then only the wall-clock timeouts hold)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        reference = {str(k): float(v) for k, v in data["tests"].items()}
        calls = {str(k): float(v) for k, v in data.get("calls", {}).items()}
        recorded = float(data["yardstick_cpu_s"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    scale = shared("yardstick 2", lambda: yardstick_seconds(repeat=2)) / recorded if recorded > 0 else 1.0
    return PerTestLimits(reference, max(scale, 0.25), calls)


def record_test_times(
    solution_parent: Path, out: Path = TEST_TIMES_FILE, tests_dir: Path | None = None
) -> int:
    """Grade the reference once and store each test's CPU seconds, and its slowest call's (run by
    `bpe-kit fixtures`); returns how many tests were timed."""
    import subprocess
    import tempfile

    from grader.request import GradeRequest
    from grader.suite import runner

    with tempfile.TemporaryDirectory() as tmp:
        times = Path(tmp) / "times.json"
        request = GradeRequest(tests_dir=tests_dir) if tests_dir is not None else GradeRequest()
        cmd = runner.suite_command(Path(solution_parent).resolve(), Path(tmp), request)
        argv = [*cmd.argv, "--grader-test-times", str(times), "--grader-no-test-limits"]
        subprocess.run(argv, env=cmd.env, cwd=tmp, capture_output=True, check=False)
        measured = json.loads(times.read_text(encoding="utf-8"))
    data = {
        "tests": {k: round(v, 4) for k, v in sorted(measured["tests"].items())},
        "calls": {k: round(v, 4) for k, v in sorted(measured["calls"].items())},
        "yardstick_cpu_s": round(yardstick_seconds(repeat=5), 4),
        "note": "Written by `bpe-kit fixtures` (grader/calibration.py): each graded test's CPU seconds "
        "for the reference solution (`tests`), and its slowest call's (`calls`); machine dependent, so "
        "not part of the byte-identical fixtures.",
    }
    Path(out).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return len(measured["tests"])


def public_test_times(text: str) -> str:
    """test_times.json without the hidden tests, for the handout: the student's own grader stops an
    endless loop as Gradescope's does, and learns no hidden test's name."""
    data = json.loads(text)
    for table in ("tests", "calls"):
        data[table] = {k: v for k, v in data.get(table, {}).items() if not k.startswith("test_hidden_")}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


@contextlib.contextmanager
def reset():
    """For tests: forget cached budgets before and after."""
    _cache.clear()
    try:
        yield
    finally:
        _cache.clear()
