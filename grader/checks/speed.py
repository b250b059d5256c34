"""Running a timed call against a calibrated budget, and saying how it went in plain words.

What a gate measured travels as data, its *figures* (a dict the graded test records with
`record_property("figures", ...)`; it lands in results.json as the test's `extra_data.figures`).
Every sentence about a measurement is made from those figures: the feedback here, the margin in
the terminal report (grader/report.py), the class report's ratio histogram (grader/farm/speed.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grader.budgets import Budget
from grader.checks import timing_rule
from grader.checks.timing_rule import Verdict
from grader.errors import CallStalled, CallTimeout, CpuLimitExceeded
from grader.i18n import N_, _, sentences
from grader.sandbox.call_words import WAITING, likely_cause, stall_kind, stall_words

if TYPE_CHECKING:
    from collections.abc import Callable

    from grader.errors import CallTimeout
    from grader.sandbox.kit import Bpe

# The budget is CPU time, and so is the stop (`Budget.abort_after`). Wall time only catches a call
# that waits instead of working (a sleep, a deadlock); it is generous, since a busy machine can
# stretch wall time to several times the CPU time without the submission being any slower.
WALL_FACTOR = 3.0
WALL_SLACK_S = 5.0


def wall_limit(budget: Budget) -> float:
    return WALL_FACTOR * budget.abort_after + WALL_SLACK_S


@dataclass(frozen=True)
class Measured:
    """A timed call's best CPU time, and how many runs it took to be clear (checks/timing_rule.py)."""

    seconds: float
    runs: int = 1


def figures(gate: str, seconds: float, budget: Budget, *, stopped: bool = False, runs: int = 1) -> dict:
    """A speed gate's measurement: the best of `runs` runs, and the verdict it earns. When
    `stopped`, `seconds` is where the run was cut off, so the ratio is a lower bound."""
    ratio = seconds / budget.seconds if budget.seconds else float("inf")
    return {
        "gate": gate,
        "measure": "cpu_seconds",
        "value": round(seconds, 4),
        "limit": round(budget.seconds, 4),
        "ratio": round(ratio, 4),
        "stopped": stopped,
        "runs": runs,
        "verdict": str(Verdict.FAIL if stopped else timing_rule.verdict(ratio)),
    }


def memory_figures(gate: str, grew_bytes: int, limit_bytes: int) -> dict:
    return {
        "gate": gate,
        "measure": "memory_bytes",
        "value": grew_bytes,
        "limit": limit_bytes,
        "ratio": round(grew_bytes / limit_bytes, 4) if limit_bytes else float("inf"),
        "stopped": False,
    }


GATES = {"training": N_("training"), "encoding": N_("encoding"), "streaming memory": N_("streaming memory")}


def margin(f: dict) -> str:
    """'training: 0.67x of the budget': one line of the terminal report."""
    gate = f["gate"]
    said = {"gate": _(GATES[gate]) if gate in GATES else gate, "ratio": f["ratio"]}
    if f["measure"] == "memory_bytes":
        return _("{gate}: {ratio:.2f}x of the limit").format(**said)
    if f["stopped"]:
        return _("{gate}: stopped at more than {ratio:.2f}x of the budget").format(**said)
    if f.get("verdict") == Verdict.BORDERLINE:
        return _("{gate}: {ratio:.2f}x of the budget (borderline: passed, best of {runs} runs)").format(
            runs=f["runs"], **said
        )
    return _("{gate}: {ratio:.2f}x of the budget").format(**said)


def timed_call(
    bpe: Bpe,
    budget: Budget,
    call: Callable[[], Any],
    what: str,
    hint: str,
    *,
    gate: str = "",
    record: Callable[[str, object], None] | None = None,
) -> tuple[Any, Measured]:
    """Run `call()` until its verdict is clear (checks/timing_rule.py); return (result, Measured).

    A run that has used ABORT_AT x the budget of CPU time is stopped: it cannot pass, and grading
    must stay fast. The stop is on CPU time, like the budget, so that a slow submission is stopped
    on every run and every machine alike, and fails in the same words.

    `record(name, value)` (the test's `record_property`) receives the figures, a stopped run's too.
    """
    record = record or (lambda name, value: None)
    runs: list[float] = []
    result = None
    for _attempt in range(timing_rule.MOST_RUNS):
        with bpe.kit.timeout(wall_limit(budget), cpu=budget.abort_after):
            try:
                result = call()
            except CpuLimitExceeded as exc:
                record("figures", figures(gate or what, budget.abort_after, budget, stopped=True))
                words = _(
                    "{what} was stopped after {stop:.2f} s of CPU time: more than {factor:g}x its time "
                    "budget of {budget:.2f} s ({basis})."
                ).format(
                    what=what,
                    stop=budget.abort_after,
                    factor=budget.abort_after / budget.seconds,
                    budget=budget.seconds,
                    basis=budget.basis,
                )
                raise AssertionError(f"{words}{_cause(exc)}\n{hint}") from None
            except CallStalled as exc:
                raise _failed(f"{exc}\n{hint}", exc) from None  # its words name any child's failure
            except CallTimeout as exc:
                if getattr(exc, "limit", None):  # a limit refused it (sandbox/limit_words.py): no stall
                    raise _failed(f"{exc}\n{hint}", exc) from None
                words = _(
                    "{what} was stopped after {wall:.1f} s of wall-clock time without finishing, far beyond "
                    "its time budget of {budget:.2f} s of CPU time ({basis})."
                ).format(what=what, wall=_ran_for(exc, budget), budget=budget.seconds, basis=budget.basis)
                why = why_it_ran_long(getattr(exc, "samples", []))
                raise AssertionError(f"{sentences(words, why)}{_cause(exc)}\n{hint}") from None
        runs.append(bpe.kit.last_call.cpu_s)
        if not timing_rule.measure_again([s / budget.seconds for s in runs]):
            break
    best = Measured(min(runs), len(runs))
    record("figures", figures(gate or what, best.seconds, budget, runs=best.runs))
    return result, best


def _ran_for(exc: CallTimeout, budget: Budget) -> float:
    """The wall-clock seconds a stopped call ran: its limit, or more when it was given more while
    it worked (grader/sandbox/process.STRETCH)."""
    samples = getattr(exc, "samples", None) or [(0.0, 0.0)]
    return max(wall_limit(budget), samples[-1][0])


def _failed(text: str, exc: CallTimeout) -> AssertionError:
    """The failure, keeping the cause the call's abort carries (a limit's: grader/charges.py)."""
    failed = AssertionError(text)
    failed.cause = getattr(exc, "cause", None)
    return failed


def why_it_ran_long(samples: list[tuple[float, float]]) -> str:
    """Waiting, or an overloaded machine, or busy: decided from how the call's CPU time moved
    (grader/sandbox/call_words.stall_kind), never assumed from the wall clock alone."""
    if not samples:
        return stall_words(WAITING, 0.0, 0.0)
    wall_s, cpu_s = samples[-1]
    return stall_words(stall_kind(list(samples)), wall_s, cpu_s)


def _cause(exc: CallTimeout) -> str:
    """How a child process of the call failed (grader/sandbox/call_words.py), when one did."""
    failure = getattr(exc, "child_failure", None)
    return "\n" + likely_cause(failure) if failure else ""


def verdict(measured: Measured | float, budget: Budget, what: str, hint: str) -> tuple[bool, str]:
    if not isinstance(measured, Measured):
        measured = Measured(measured)
    f = figures(what, measured.seconds, budget, runs=measured.runs)
    text = _(
        "{what} took {value:.2f} s of CPU time: {ratio:.2f}x the budget of {limit:.2f} s ({basis})."
    ).format(what=what, value=f["value"], ratio=f["ratio"], limit=f["limit"], basis=budget.basis)
    if f["verdict"] == Verdict.PASS:
        return True, text
    if f["verdict"] == Verdict.BORDERLINE:
        return True, sentences(
            text,
            _(
                "Borderline: that is the best of {runs} runs, less than {over} over the budget, "
                "within the noise of a measurement, so it passes. A little more speed puts it clear "
                "of the budget."
            ).format(runs=measured.runs, over=f"{round((timing_rule.BORDER - 1) * 100)}%"),
        )
    return False, text + "\n" + hint
