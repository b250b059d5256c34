"""grader/grade_builder.py: the one builder of a grade from per-test records. A partial regrade that
replaces records with the same records moves nothing; the records a proven fault needs are asked
for and kept; a parametrized test's cases are replaced together."""

from __future__ import annotations

from grader import grade_builder
from grader.checks.merge_fault import TIE_BREAK
from grader.rubric import Entry
from grader.scoring import score
from grader.terms import Status

ENTRIES = [Entry(f"test_part2.py::test_{k}", f"2.{k}", f"test 2.{k}", 2, 3, "visible") for k in range(3, 9)]


def _record(entry: Entry, suffix: str = "", status: str = "failed") -> dict:
    return {
        "nodeid": entry.id + suffix,
        "status": status,
        "feedback": "wrong" if status == "failed" else "",
        "output": "",
        "duration": 0.1,
        "cause": TIE_BREAK if status == "failed" else {},
    }


RECORDS = [_record(e) for e in ENTRIES]


def _grade(scored) -> list[tuple]:
    return [(s.entry.number, s.status, s.score, s.same_as) for s in scored]


def test_replacing_a_capped_test_with_its_own_record_moves_nothing():
    full = grade_builder.build(ENTRIES, RECORDS, partial=False)
    assert [s.status for s in full.scored][-1] == Status.SAME_CAUSE  # 2.8 is past the fault's cap
    for entry, record in zip(ENTRIES, RECORDS, strict=True):
        union = grade_builder.replaced(ENTRIES, full.records, [dict(record)])
        assert sorted(r["nodeid"] for r in union) == sorted(r["nodeid"] for r in RECORDS)
        assert _grade(grade_builder.build(ENTRIES, union, partial=False).scored) == _grade(full.scored), (
            entry.id
        )
    # scored alone, as the farm once laid a regrade over its record, 2.8 would be charged
    alone = score(ENTRIES, RECORDS[-1:], partial_run=True)
    assert alone[0].status == "failed" and alone[0].score == 0


def test_a_partial_grade_asks_for_the_earlier_tests_and_keeps_their_records():
    asked = []

    def grade_more(ids):
        asked.extend(ids)
        return [r for r in RECORDS if r["nodeid"] in ids]

    built = grade_builder.build(ENTRIES, RECORDS[-1:], partial=True, grade_more=grade_more)
    assert asked == [e.id for e in ENTRIES[:-1]] and built.more == len(ENTRIES) - 1
    assert _grade(built.scored) == _grade(grade_builder.build(ENTRIES, RECORDS, partial=False).scored)[-1:]
    assert sorted(r["nodeid"] for r in built.records) == sorted(r["nodeid"] for r in RECORDS)
    passed = [_record(ENTRIES[-1], status="passed")]
    assert grade_builder.build(ENTRIES, passed, partial=True, grade_more=grade_more).more == 0


def test_a_parametrized_test_is_replaced_case_by_case_together():
    entry = ENTRIES[0]
    kept = [_record(entry, "[a]"), _record(entry, "[b]"), *RECORDS[1:]]
    fresh = [_record(entry, "[a]", status="passed")]  # a regrade that ran only case a now
    union = grade_builder.replaced(ENTRIES, kept, fresh)
    assert [r["nodeid"] for r in union if entry.covers(r["nodeid"])] == [entry.id + "[a]"]
    assert len(union) == len(RECORDS)
