"""When a speed gate's measurement is clear, and what a borderline one earns.

CPU time still moves from run to run (caches, frequency scaling, a neighbour's memory traffic), by
up to a fifth for the same code. A verdict must not follow that noise, so a gate measures a call
until its verdict is clear:

- a run at most `CLEAR_UNDER` x the budget passes at once; one clearly over it is timed once more;
- otherwise the call is timed again, up to `MOST_RUNS` runs, while the best run (noise only ever
  adds time) stays between `CLEAR_UNDER` and `CLEAR_OVER` x the budget;
- the best run decides: within the budget it passes; over it, but under `BORDER` x, it is
  *borderline*, and passes, with its figures in the report; at `BORDER` x or more it fails.

The grade's edge (`BORDER`) lies inside the band that is measured `MOST_RUNS` times, so code whose
time sits near it is always judged on its best of `MOST_RUNS` runs, never on one unlucky run. The
rule is stated for instructors in INSTRUCTORS.md ("Borderline timings").
"""

from __future__ import annotations

from enum import StrEnum

BORDER = 1.15
CLEAR_UNDER = 1 / BORDER
CLEAR_OVER = 1.3
MOST_RUNS = 5


class Verdict(StrEnum):
    PASS = "pass"
    BORDERLINE = "borderline"
    FAIL = "fail"


def measure_again(ratios: list[float]) -> bool:
    """Whether the runs so far (each a time / budget ratio) leave the verdict unclear."""
    best = min(ratios)
    if len(ratios) >= MOST_RUNS:
        return False
    if CLEAR_UNDER < best < CLEAR_OVER:
        return True
    return len(ratios) == 1 and best > 1  # clearly over: one more run rules out a freak


def verdict(best_ratio: float) -> Verdict:
    if best_ratio <= 1:
        return Verdict.PASS
    if best_ratio < BORDER:
        return Verdict.BORDERLINE
    return Verdict.FAIL
