"""A partial grade charges a capped fault on the tests where a full grade charges it.

One proven fault is charged in rubric order, up to the cap (grader/charges.py): whether a test pays
depends on the tests before it that fail from the same fault. A partial grade (`--part`, `--tests`)
that ran only some of them would charge the fault on other tests than a full grade. So when a test
of a partial grade fails from a proven fault, the rubric's earlier tests that it did not run are
graded too (`earlier_unrun`), the charges are decided over them all, and the report shows only the
tests that were asked for (`charged_as_in_full`).
"""

from __future__ import annotations

from collections.abc import Callable

from .rubric import Entry, number_key
from .scoring import Scored, score
from .terms import Status


def earlier_unrun(scored: list[Scored], entries: list[Entry], left_out: set[str]) -> list[Entry]:
    """The rubric's tests before the last one that failed from a proven fault (in rubric order)
    that this grade did not run; [] when no test failed from one."""
    proven = [s for s in scored if s.status == Status.FAILED and (s.cause or {}).get("one_fault")]
    if not proven:
        return []
    ran = {s.entry.id for s in scored}
    last = max(number_key(s.entry.number) for s in proven)
    return [e for e in entries if e.id not in ran and e.id not in left_out and number_key(e.number) < last]


def charged_as_in_full(
    scored: list[Scored],
    records: list[dict],
    entries: list[Entry],
    left_out: set[str],
    grade_more: Callable[[list[str]], list[dict]],
    allow_unlisted: bool = False,
) -> tuple[list[Scored], int]:
    """(the same tests, charged as over the whole rubric; how many more tests were graded for it).
    `grade_more(ids)`: the records of those rubric tests, graded like the others."""
    more = earlier_unrun(scored, entries, left_out)
    if not more:
        return scored, 0
    asked = {s.entry.id for s in scored}
    union = score(
        entries, records + grade_more([e.id for e in more]), partial_run=True, allow_unlisted=allow_unlisted
    )
    return [s for s in union if s.entry.id in asked], len(more)
