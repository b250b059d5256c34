"""Running a timed call against a calibrated budget, and saying how it went in plain words."""

from __future__ import annotations

from grader.calibration import Budget

# The budget is CPU time, and so is the stop (`Budget.abort_after`). Wall time only catches a call
# that waits instead of working (a sleep, a deadlock); it is generous, since a busy machine can
# stretch wall time to several times the CPU time without the submission being any slower.
WALL_FACTOR = 3.0
WALL_SLACK_S = 5.0


def wall_limit(budget: Budget) -> float:
    return WALL_FACTOR * budget.abort_after + WALL_SLACK_S


def timed_call(bpe, budget: Budget, call, what: str, hint: str):
    """Run `call()` once (twice if the first is over budget, to rule out noise); return (result, seconds).

    A run that has used ABORT_AT x the budget of CPU time is stopped: it cannot pass, and grading
    must stay fast. The stop is on CPU time, like the budget, so that a slow submission is stopped
    on every run and every machine alike, and fails in the same words.
    """
    from grader.errors import CallTimeout, CpuLimitExceeded

    best, result = None, None
    for _attempt in range(2):
        with bpe.kit.timeout(wall_limit(budget), cpu=budget.abort_after):
            try:
                result = call()
            except CpuLimitExceeded:
                raise AssertionError(
                    f"{what} was stopped after {budget.abort_after:.2f} s of CPU time: more than "
                    f"{budget.abort_after / budget.seconds:g}x its time budget of {budget.seconds:.2f} s "
                    f"({budget.basis}).\n{hint}"
                ) from None
            except CallTimeout:
                raise AssertionError(
                    f"{what} was stopped after {wall_limit(budget):.1f} s of wall-clock time without "
                    f"finishing, far beyond its time budget of {budget.seconds:.2f} s of CPU time "
                    f"({budget.basis}). Is it waiting on something (a sleep, a lock, a child process)?"
                    f"\n{hint}"
                ) from None
        seconds = bpe.kit.last_call.cpu_s
        best = seconds if best is None else min(best, seconds)
        if best <= budget.seconds:
            break
    return result, best


def verdict(seconds: float, budget: Budget, what: str, hint: str) -> tuple[bool, str]:
    ratio = seconds / budget.seconds if budget.seconds else float("inf")
    text = (
        f"{what} took {seconds:.2f} s of CPU time: {ratio:.2f}x the budget of {budget.seconds:.2f} s "
        f"({budget.basis})."
    )
    if ratio <= 1:
        return True, text
    return False, text + "\n" + hint
