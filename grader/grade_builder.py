"""One grade from the suite's per-test records: the only place where a grade is built.

`bpe-kit grade`, the farm (a full grade, a partial regrade merged into a student's record, a run
stopped by its budget) and every partial grade build their grade here, from the raw records the
suite's pytest process wrote (grader/suite/outcome.py), scored over the rubric
(grader/scoring.py) and charged (grader/charges.py). A proven fault's charges depend on every
earlier test it fails, so they are decided over all the records at hand, never over a subset
scored alone: a partial regrade that changes no record changes no total.

When the records lack earlier rubric tests that a proven fault needs, the builder asks for them
(`grade_more`) and decides the charges over them all; the grade shows the tests its records
covered (grader/partial.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .partial import charged_as_in_full
from .rubric import Entry
from .scoring import Scored, score

GradeMore = Callable[[list[str]], list[dict]]  # rubric ids -> their records, graded like the others


@dataclass(frozen=True)
class Built:
    scored: list[Scored]  # the tests the given records cover, charged as over the whole rubric
    records: list[dict]  # every record the charges were decided over (the given ones and `more`'s)
    more: int = 0  # how many earlier tests were graded for the charges (`grade_more`)


def build(
    entries: list[Entry],
    records: list[dict],
    *,
    partial: bool,
    left_out: frozenset[str] | set[str] = frozenset(),
    grade_more: GradeMore | None = None,
    allow_unlisted: bool = False,
) -> Built:
    """The grade of `records` over the rubric `entries`.

    `partial`: the records need not cover the rubric (an entry without records is left out, not
    scored "not run"); `left_out`: rubric ids the contract does not run; `grade_more`: how to get
    the records of earlier tests a proven fault needs (None: the charges are decided over these
    records alone)."""
    scored = score(entries, records, partial_run=partial, allow_unlisted=allow_unlisted)
    if not (partial and grade_more):
        return Built(scored, list(records))
    extra: list[dict] = []

    def fetched(ids: list[str]) -> list[dict]:
        got = grade_more(ids)
        extra.extend(got)
        return got

    scored, more = charged_as_in_full(scored, records, entries, set(left_out), fetched, allow_unlisted)
    return Built(scored, [*records, *extra], more)


def replaced(entries: list[Entry], kept: list[dict], fresh: list[dict]) -> list[dict]:
    """`kept` records with those of every rubric test `fresh` grades replaced by `fresh`'s: what a
    partial regrade leaves to build the grade from. Replaced by rubric test, not by node id, so a
    parametrized test's cases are always of one run."""
    regraded = {e.id for e in entries for r in fresh if e.covers(r["nodeid"])}
    ids = {r["nodeid"] for r in fresh}
    stays = [
        r
        for r in kept
        if r["nodeid"] not in ids and not any(e.covers(r["nodeid"]) for e in entries if e.id in regraded)
    ]
    return [*stays, *fresh]
