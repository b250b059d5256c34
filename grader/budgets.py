"""The speed budgets and time limits as numbers and formulas: what a gate or a test may spend.

Every budget is a multiple of something measured on the grading machine (grader/calibration.py
measures it): a fixed number of seconds would pass a slow submission on a fast machine and fail a
good one on a busy grader. This module holds only the rules: the factors, the workloads they are
measured on, and the arithmetic that turns a measured figure into a limit and its sentence for the
student. It imports nothing of the kit's but `i18n`, so the sandbox, the suite, the handout's
build and the checks can all read it. Times are CPU seconds of the worker (children included),
which a busy machine disturbs far less than wall time. How the factors were chosen, and the
measurements behind them: bench/CALIBRATION.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .i18n import _

# ------------------------------------------------------------------------------ the speed gates
# Each factor sits between the slowest right submission and the fastest wrong-by-design one, about
# at their geometric mean, with room on both sides for a busy machine (bench/CALIBRATION.md).
# tests/kit/graded/test_suite_graded.py fails when the reference's speed drifts away from them.
FACTORS = {"train": 16.0, "encode": 24.0}
# A run that has used ABORT_AT x its budget of CPU time is stopped (grader/checks/speed.py): it
# cannot pass anyway. The stop is on CPU time like the budget: a stop on wall time moves with the
# machine's load, and a submission near it would end in other words on a busier run.
ABORT_AT = 1.5

# The gates' workloads, each data.corpus.generate_text(kind, n_bytes, seed)
TRAIN_CORPUS = ("mixed", 1_000_000, 101)
TRAIN_VOCAB_SIZE = 1000
ENCODE_TEXT = ("mixed", 1_000_000, 31)
STREAM_FILE = ("mixed", 2_000_000, 1)
ENCODE_TRAIN_CASE = "generated_500"  # tokenizer: this public fixture's vocab and merges, + EOT
# The yardstick: a fixed workload timed on this machine, which scales recorded figures to it
YARDSTICK_TEXT = ("en", 400_000, 3)
YARDSTICK_ROUNDS = 100


@dataclass(frozen=True)
class Budget:
    seconds: float
    basis: str  # one sentence for the student: where the number comes from

    @property
    def abort_after(self) -> float:
        return self.seconds * ABORT_AT


def measured_budget(gate: str, seconds: float) -> Budget:
    """A gate's budget from the reference's own time on the gate's workload, measured in this run."""
    return Budget(
        FACTORS[gate] * seconds,
        _(
            "{factor:g} x the reference solution's {seconds:.2f} s, measured on this machine in this run"
        ).format(factor=FACTORS[gate], seconds=seconds),
    )


def estimated_budget(gate: str, ratio: float, yard: float) -> Budget:
    """A gate's budget without the reference (the handout): the yardstick timed in this run, times
    the reference/yardstick ratio recorded with the fixtures."""
    seconds = yard * ratio
    return Budget(
        FACTORS[gate] * seconds,
        _(
            "{factor:g} x the reference solution's estimated {seconds:.2f} s on this machine (from a "
            "{yard:.2f} s yardstick timed in this run)"
        ).format(factor=FACTORS[gate], seconds=seconds, yard=yard),
    )


# ------------------------------------------------------------------------ per-test time limits
# Each graded test's calls may use, together, TEST_FACTOR x the CPU seconds the reference solution's
# calls used in that test (recorded by `bpe-kit fixtures` in test_times.json, scaled to this machine
# by the yardstick); and no single call more than CALL_FACTOR x the reference's slowest call in that
# test. Both get allowances on top: CALL_ALLOWANCE_S for every call the test has made (this one
# included), and CHILD_ALLOWANCE_S for every process a call had running (up to MAX_CHILDREN);
# a slow import (over IMPORT_NOTED_S) is added once to a call that ran any (per_test.TestLimits.children_allowance).
# Per call as well as per test: a property test makes a hundred small calls, and a first call that
# loops for ever is stopped after a second or two, not after the share of all hundred.
# The allowances pay what the reference never pays: a first compile of a pattern, a moment of
# noise, and each child of a multiprocessing pool, which starts Python and imports `bpe`. They grow
# on a machine slower than the recording one (and never shrink on a faster one).
# Neither a test's time nor a call's holds the submission's import (IMPORT_CPU_S below). A call's
# factor is the larger because the reference's calls on small inputs take one to four /proc ticks,
# and a correct naive trainer takes many times that on one of them. `python bench/run.py --only
# limits` measures both, on the catalogue's slow rows and on loop_forever.
# CPU time, not wall time: a busy machine stretches wall time several-fold but CPU time barely, so
# the limit never fails correct code because of load; the test's wall-clock timeout stays, only as
# a backstop for a call that waits (and a call whose CPU time stands still is stopped sooner:
# grader/sandbox/process.IDLE_S).
# A recorded fixture, not the reference measured in this run as the speed gates do: a per-test
# figure needs the reference run through every test, which would double every grade; one recorded
# run, rescaled by the yardstick, costs nothing. The speed gates' large workloads run under their
# own budgets (`bpe.kit.timeout`), not under these limits.
TEST_FACTOR = 25.0
# The submission's import is no test's time: every test's fresh worker imports it before the test's
# limits start (session.Session.prepare). It has a limit of its own, generous because a package may
# rightly import a heavy library (a CS336 repository's tests/adapters.py imports torch), scaled to
# the machine like the limits above. An import over IMPORT_NOTED_S is named once in the report's
# header (grader/report.py): it costs no points, but the student waits for it once per test; under
# it it is not worth a line.
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


MIN_SCALE = 0.25  # a machine seen as over 4x faster than the recording one is not believed further


def scaled_limits(
    reference: dict[str, float], calls: dict[str, float], yard: float, recorded: float
) -> PerTestLimits:
    """The per-test limits of a recorded run (test_times.json) on a machine whose yardstick took
    `yard` CPU seconds, where the recording machine's took `recorded`."""
    scale = yard / recorded if recorded > 0 else 1.0
    return PerTestLimits(reference, max(scale, MIN_SCALE), calls)


def _seconds(value: float) -> str:
    """A recorded CPU time in words: /proc counts 10 ms ticks, so 0.00 means under one."""
    return _("{seconds:.2f} s").format(seconds=value) if value >= 0.01 else _("under 0.01 s")
