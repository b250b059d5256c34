"""report.html: self-contained, and what a browser shows matches the class's results."""

from __future__ import annotations

import io
import re

import pytest
from instructor_fakes import make_submission, write_suite
from report_dom import CHROMIUM, Dom, dump_dom

from grader.farm import records, report
from grader.farm.batch import grade_all


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    tests, rubric = write_suite(root / "suite")
    subs = root / "subs"
    make_submission(subs, "ann", points=["1.1", "1.2", "2.1", "3.1"], ratio=0.42)
    make_submission(subs, "ben", points=["1.1", "1.2"], ratio=1.7)
    make_submission(subs, "cat", points=["1.1"], ratio=0.9)
    (subs / "dan").mkdir()
    (subs / "eve.zip").write_bytes(b"junk")
    out = root / "out"
    manifest = grade_all(
        subs, out, tests_dir=tests, rubric_path=rubric, budget=120, jobs=2, stream=io.StringIO()
    )
    recs = records.read_records(out)
    return out, recs, report.write(out, manifest, recs)


def test_the_report_needs_nothing_from_outside(klass):
    html = klass[2].read_text()
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert not re.search(r"url\(", html)


def test_every_student_has_a_feedback_section_and_every_graded_one_a_histogram_count(klass):
    _out, recs, path = klass
    dom = Dom(path.read_text())
    assert [a["id"] for a in dom.find("section")] == [f"student-{s}" for s in sorted(recs)]
    counts = [int(a["data-count"]) for t, a in dom.elements if t == "rect"][:10]
    assert sum(counts) == sum(r["status"] == "graded" for r in recs.values()) == 3


@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found (apt-get install chromium) to render report.html"
)
def test_a_browser_shows_histogram_failure_rates_ratios_and_error_links(klass):
    _out, recs, path = klass
    dom = Dom(dump_dom(path))
    svgs = dom.find("svg")
    assert [s["class"] for s in svgs] == ["scores", "ratios"]
    bars = [a for t, a in dom.elements if t == "rect"]
    score_bars = bars[:10]
    assert {b["data-bin"]: int(b["data-count"]) for b in score_bars if int(b["data-count"])} == {
        "30–40": 1,
        "90–100": 1,
        "10–20": 1,
    }
    rates = {a["data-test"]: float(a["data-failure-rate"]) for a in dom.find("tr") if "data-test" in a}
    assert rates == {
        "1.1 merge": 0.0,
        "1.2 train": pytest.approx(1 / 3, abs=1e-4),
        "2.1 encode": pytest.approx(2 / 3, abs=1e-4),
        "3.1 speed": pytest.approx(2 / 3, abs=1e-4),
    }
    ratio_bars = {b["data-bin"]: int(b["data-count"]) for b in bars[10:] if int(b["data-count"])}
    assert ratio_bars == {"0.25–0.5": 1, "0.75–1": 1, "1.5–2": 1}
    assert [a["data-gate"] for a in dom.find("tr") if "data-gate" in a] == ["3.1 speed"]
    links = [a["href"] for a in dom.find("a")]
    assert links == ["#student-dan", "#student-eve"]
    for href in links:
        assert dom.find("section", id=href[1:]), f"{href} points nowhere"
    text = " ".join(dom.text)
    assert recs["dan"]["message"] in text and "not a readable zip" in text
    assert "5 students" in text and "0 grader_error" in text and "2 unreadable_submission" in text


def test_speed_ratios_are_read_from_the_recorded_figures_never_from_words():
    from grader.farm.speed import ratio_of

    words = {"output": "train_bpe took 0.35 s of CPU time: 0.16x the budget of 2.22 s (...)."}
    assert ratio_of(words) is None
    assert ratio_of({"extra_data": {"figures": {"measure": "cpu_seconds", "ratio": 0.42}}}) == 0.42
    memory = {"measure": "memory_bytes", "ratio": 0.2}
    assert ratio_of({"extra_data": {"figures": memory}}) is None


def test_speed_gate_figures_and_words_agree():
    """The gate's words (grader/checks/speed.py) state the ratio its figures hold."""
    from grader.calibration import Budget
    from grader.checks import speed

    budget = Budget(2.0, "6 x the reference")
    f = speed.figures("training", 0.35, budget)
    assert f["ratio"] == pytest.approx(0.175) and f["measure"] == "cpu_seconds" and not f["stopped"]
    ok, text = speed.verdict(0.35, budget, "train_bpe on 1 MB", "hint")
    assert ok and f"{f['ratio']:.2f}x the budget" in text
    assert speed.margin(f) == "training: 0.17x of the budget"
    stopped = speed.figures("training", budget.abort_after, budget, stopped=True)
    assert speed.margin(stopped).startswith("training: stopped at more than 1.50x")
