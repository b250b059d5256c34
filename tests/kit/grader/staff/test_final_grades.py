"""Late policy, overrides and the final grade; what a student's page shows and hides."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from grader.errors import StaffFileError
from grader.staff import late_policy, overrides
from grader.staff.class_results import Graded, ResultRow
from grader.staff.class_roster import Roster, Student
from grader.staff.final_grades import compute
from grader.staff.late_policy import LatePolicy

UTC = UTC
DUE = datetime(2026, 11, 20, 12, tzinfo=UTC)


def at(**delta) -> datetime:
    return DUE + timedelta(**delta)


@pytest.mark.parametrize(
    ("submitted", "days", "slip", "percent"),
    [
        (at(minutes=-1), 0, 0, 0),
        (at(minutes=10), 0, 0, 0),  # within the grace period
        (at(minutes=16), 1, 1, 0),  # past it: one day, paid with the slip day
        (at(hours=25), 2, 1, 10),  # two days, one of them slipped
        (at(days=3), 3, 1, 20),
        (at(days=3, seconds=1), 4, 1, 100),  # beyond max_late_days: nothing left
    ],
)
def test_days_late_are_rounded_up_after_the_grace_period(submitted, days, slip, percent):
    p = LatePolicy(due=DUE, grace=timedelta(minutes=15), penalty_per_day=10, max_late_days=3, slip_days=1)
    late = p.lateness("s1", submitted)
    assert (late.days_late, late.slip_days_used, late.percent) == (days, slip, percent)


def test_policy_file_with_extensions_in_days_or_as_dates(tmp_path):
    f = tmp_path / "late.toml"
    f.write_text(
        'due = 2026-11-20T23:59:00-08:00\npenalty_per_day = 5\n[extensions]\ns1 = 2\ns2 = "2026-11-25T12:00:00Z"\n'
    )
    p = late_policy.load(f)
    assert p.due_for("s1") - p.due == timedelta(days=2)
    assert p.due_for("s2") == datetime(2026, 11, 25, 12, tzinfo=UTC) == p.last_due()
    assert p.due_for("s3") == p.due
    assert p.lateness("s1", p.due + timedelta(days=1)).percent == 0
    assert p.lateness("s3", p.due + timedelta(days=1)).percent == 5
    for text, problem in [
        ("penalty_per_day = 5\n", "needs a `due`"),
        ("due = 2026-11-20T23:59:00\n", "no UTC offset"),
        ("due = 2026-11-20T23:59:00Z\npenalty = 5\n", "unknown key"),
        ("due = 2026-11-20T23:59:00Z\npenalty_per_day = -5\n", "non-negative"),
        ("due = 2026-11-20T23:59:00Z\nslip_days = 1.5\n", "whole number"),
        ("due = [\n", "cannot read"),
    ]:
        f.write_text(text)
        with pytest.raises(StaffFileError, match=problem):
            late_policy.load(f)


def _class():
    tests = [
        ResultRow("1.1", "merge", 10, 10, "passed", "", "visible"),
        ResultRow("2.1", "encode", 0, 30, "failed", "wrong ids", "visible"),
        ResultRow("3.1", "speed", 40, 40, "passed", "", "after_due_date"),
        ResultRow("3.2", "secret", 20, 20, "passed", "", "hidden"),
    ]
    roster = Roster((Student("s1", "Doe, Jane"), Student("s2", "Roe, Rick")))
    return {"s1": Graded("s1", "graded", 70.0, 100.0, "", tests)}, roster


def test_overrides_clamp_to_the_test_and_apply_before_the_penalty(tmp_path):
    f = tmp_path / "o.csv"
    f.write_text(
        'student,target,points,reason,who\ns1,2.1,+50,"fixture typo",TA\ns1,1.1,-3,"hard-coded",TA\ns1,TOTAL,+2,"bonus",Prof\n'
    )
    results, roster = _class()
    policy = LatePolicy(due=DUE, penalty_per_day=50)
    (g, missing), strays = compute(
        results, roster, policy=policy, overrides=overrides.load(f), times={"s1": at(hours=1)}
    )
    assert [(t.number, t.raw, t.score) for t in g.tests[:2]] == [("1.1", 10, 7), ("2.1", 0, 30)]
    assert (g.raw, g.adjustment, g.adjusted, g.penalty, g.final) == (70, 29, 99, 49.5, 49.5)
    assert (missing.status, missing.final, missing.max_score) == ("missing", 0, 100) and strays == []
    for text, problem in [
        ("student,target,points,reason,who\ns1,9.9,1,r,w\n", "no test '9.9'"),
        ("student,target,points,reason,who\nzz,1.1,1,r,w\n", "zz not on the roster"),
        ("student,target,points,reason,who\ns2,total,1,r,w\n", "no submission to adjust"),
    ]:
        f.write_text(text)
        with pytest.raises(StaffFileError, match=problem):
            compute(results, roster, overrides=overrides.load(f))
    for text, problem in [
        ("student,target,points\n", "exactly the columns"),
        ("student,target,points,reason,who\ns1,1.1,lots,r,w\n", "not a number"),
        ("student,target,points,reason,who\ns1,1.1,1,,w\n", "says why"),
    ]:
        f.write_text(text)
        with pytest.raises(StaffFileError, match=problem):
            overrides.load(f)


def test_pages_follow_visibility_and_escape_what_students_wrote():
    pytest.importorskip("jinja2")
    from grader.staff.feedback_pages import Moment, render

    results, roster = _class()
    t = results["s1"].tests
    t[1] = ResultRow("2.1", "encode", 0, 30, "failed", "<img src=x onerror=alert(1)> ``` x", "visible")
    (g, _), _ = compute(results, roster, policy=LatePolicy(due=DUE))
    html, md = render(g, Moment(after_due=False, published=False), "A1")
    assert "1.1 merge" in html and "3.1" not in html and "secret" not in html and 'id="final"' not in html
    assert "10 / 40" in html  # the visible tests' points only
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\n````\n<img src=x onerror=alert(1)> ``` x\n````\n" in md  # a fence longer than the output's
    html, md = render(g, Moment(after_due=True, published=False), "A1")
    assert "3.1 speed" in html and "secret" not in html and 'id="final"' not in html
    html, md = render(g, Moment(after_due=True, published=True), "A1")
    assert "3.1 speed" in html and "secret" not in html and 'id="final"><strong>70 / 100' in html
    assert "**Final score: 70 / 100**" in md
    # `farm release --lang zh`: the same page in Chinese, what students wrote quoted unchanged
    from grader import i18n

    with i18n.speaking("zh"):
        html_zh, md_zh = render(g, Moment(after_due=True, published=True), "A1")
    assert '<html lang="zh-CN">' in html_zh and "最终成绩" in html_zh and "Final score" not in html_zh
    assert "**最终成绩: 70 / 100**" in md_zh and "&lt;img src=x onerror=alert(1)&gt;" in html_zh
    assert '<html lang="en">' in html
    # the moment comes from the latest due date of anyone: an extension keeps the page closed
    p = LatePolicy(due=DUE, extensions={"s2": at(days=2)})
    assert not Moment.at(at(days=1), p, published=False).after_due
    assert Moment.at(at(days=2), p, published=False).after_due
