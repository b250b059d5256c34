"""One fault, one charge: which failed tests cost their points when one fault fails several.

A failed test may carry its cause as data (`Scored.cause`: a key, where to fix it, a one-line
summary; see grader/checks/diagnose.py, grader/checks/merge_fault.py, grader/suite/outcome.py).
Failed tests with equal keys share one fault. The first of them in rubric order names it (the suite
is ordered so that this is the test whose name states it) and is charged in full. A later one that
the diagnosis proves is failed by that fault alone (`one_fault`: the same crash at the same line,
a tie-break, a classic mistake...) says "same cause as N" in one line, and is charged until the
fault's cost would pass `CAP` points; from there on, none is. A later failure not proven to be that
fault alone is charged as usual and keeps its own feedback (what differs there), never "same
cause": a second bug is never excused by the first. A gate (a speed test, `gate`) whose own
measure passed is never charged for a proven fault an earlier test charges: it grades only what its
name says. The rule is stated in assignment/README.md ("One fault, several tests").
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .terms import Status

if TYPE_CHECKING:
    from .scoring import Scored

CAP = 10  # points: the most one proven fault costs, whatever the number of tests it fails


def charge(scored: list[Scored]) -> list[Scored]:
    """The same results with `same_as` set on each later test of a proven shared fault, and the
    tests past its cap given back their points (status Status.SAME_CAUSE)."""
    out = [dataclasses.replace(s) for s in scored]
    first: dict[str, Scored] = {}
    cost: dict[str, float] = {}
    for s in out:
        key = (s.cause or {}).get("key") if s.status == Status.FAILED else None
        if not key:
            continue
        if key not in first:
            first[key], cost[key] = s, s.entry.points
            continue
        if not s.cause.get("one_fault"):
            continue  # not proven to be that fault alone: charged as usual, said in its own words
        s.same_as = first[key].entry.number
        if s.cause.get("gate"):  # a gate's own measure passed: the fault is charged where it is named
            s.status, s.score = Status.SAME_CAUSE, s.entry.points
            continue
        if cost[key] + s.entry.points <= CAP:
            cost[key] += s.entry.points
        else:  # from here on, this fault charges no more: a later, smaller test is not charged either
            cost[key] = float("inf")
            s.status, s.score = Status.SAME_CAUSE, s.entry.points
    return out


def capped_elsewhere(scored: list[Scored], oracles: bool) -> bool:
    """True when a fault this grader charges on each test may cost less in the course's grade:
    without the oracles (the handout's copy) no fault is proven alone, so none is capped here,
    and two tests or more failed."""
    return not oracles and sum(s.status == Status.FAILED for s in scored) >= 2
