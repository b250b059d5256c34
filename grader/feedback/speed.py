"""Running a timed call against a calibrated budget, and saying how it went in plain words."""
from __future__ import annotations

from grader.calibration import Budget

WALL_SLACK_S = 5.0  # the abort is on wall time, the budget on CPU time: leave room for a busy machine


def timed_call(bpe, budget: Budget, call, what: str, hint: str):
    """Run `call()` once (twice if the first is over budget, to rule out noise); return (result, seconds).

    A run still going after about ABORT_AT x the budget is stopped: it cannot pass, and grading
    must stay fast.
    """
    from grader.process import CallTimeout

    best, result = None, None
    for attempt in range(2):
        with bpe.kit.timeout(budget.abort_after + WALL_SLACK_S):
            try:
                result = call()
            except CallTimeout:
                raise AssertionError(
                    f"{what} was stopped after {budget.abort_after + WALL_SLACK_S:.1f} s: more than "
                    f"{budget.abort_after / budget.seconds:g}x its time budget of {budget.seconds:.2f} s "
                    f"({budget.basis}).\n{hint}") from None
        seconds = bpe.kit.last_call.cpu_s
        best = seconds if best is None else min(best, seconds)
        if best <= budget.seconds:
            break
    return result, best


def verdict(seconds: float, budget: Budget, what: str, hint: str) -> tuple[bool, str]:
    ratio = seconds / budget.seconds if budget.seconds else float("inf")
    text = (f"{what} took {seconds:.2f} s of CPU time: {ratio:.2f}x the budget of {budget.seconds:.2f} s "
            f"({budget.basis}).")
    if ratio <= 1:
        return True, text
    return False, text + "\n" + hint
