"""report.html: self-contained, and what a browser shows matches the class's results."""

from __future__ import annotations

import io
import re

import pytest
from instructor_fakes import make_submission, write_suite
from report_dom import CHROMIUM, Dom, dump_dom

from grader.farm import records, report, report_view
from grader.farm.batch import grade_all
from grader.request import GradeRequest


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    tests, rubric = write_suite(root / "suite")
    subs = root / "subs"
    make_submission(subs, "ann", points=["1.1", "1.2", "2.1", "3.1"], ratio=0.42)
    make_submission(subs, "ben", points=["1.1", "1.2"], ratio=1.7)
    make_submission(subs, "cat", points=["1.1"], ratio=0.9)
    make_submission(subs, "zed", points=[], ratio=0.3)
    (subs / "dan").mkdir()
    (subs / "eve.zip").write_bytes(b"junk")
    out = root / "out"
    manifest = grade_all(
        subs,
        out,
        request=GradeRequest(tests_dir=tests, rubric_path=rubric),
        budget=120,
        jobs=2,
        stream=io.StringIO(),
    )
    recs = records.read_records(out)
    return out, recs, report.write(out, manifest, recs)


def _pages(out):
    return [out / "report.html", *sorted((out / "report").glob("*.html"))]


def _section_ids(out):
    return [a["id"] for p in _pages(out) for a in Dom(p.read_text()).find("section")]


def test_the_report_needs_nothing_from_outside(klass):
    out = klass[0]
    for page in _pages(out):
        html = page.read_text()
        assert "<link" not in html and "@import" not in html, page
        assert not re.search(r"<script[^>]*\ssrc", html), page  # only the inline sorting script
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html), page
        assert not re.search(r"url\(", html), page
    assert "<script" not in (out / "report.html").read_text()  # the overview is static


def test_every_student_has_a_feedback_section_and_every_graded_one_a_histogram_count(klass):
    out, recs, path = klass
    assert _section_ids(out) == [f"student-{s}" for s in sorted(recs)]
    dom = Dom(path.read_text())
    counts = [int(a["data-count"]) for t, a in dom.elements if t == "rect"][:10]
    assert sum(counts) == sum(r["status"] == "graded" for r in recs.values()) == 4


def test_a_graded_zero_is_red_never_green_and_its_status_is_a_separate_fact(klass):
    out, recs, _ = klass
    assert recs["zed"]["status"] == "graded" and recs["zed"]["score"] == 0
    dom = Dom((out / "report/students-1.html").read_text())
    rows, who = {}, None
    for t, a in dom.elements:
        if t == "tr":
            who = a.get("data-student") if "data-status" in a else None
        elif t == "td" and who and ("score-" in a.get("class", "") or "status-" in a.get("class", "")):
            rows.setdefault(who, []).append(a["class"])
    assert set(rows) == set(recs)
    assert rows["zed"] == ["status-graded", "n score-zero"]
    assert rows["ann"] == ["status-graded", "n score-full"]
    assert rows["ben"][1] == "n score-low" and rows["dan"] == ["status-unreadable_submission", "n score-zero"]
    css = dict(
        re.findall(
            r"\.(score-\w+|status-graded) \{ color: #(\w{6})", (out / "report/students-1.html").read_text()
        )
    )

    def rgb(hexcode):
        return tuple(int(hexcode[i : i + 2], 16) for i in (0, 2, 4))

    red, green, _blue = rgb(css["score-zero"])
    assert red > 2 * green, "a score of 0 must read as a failure"
    r, g, b = rgb(css["status-graded"])
    assert not (g > r and g > b), "the status `graded` must not look like a good score"
    assert rgb(css["score-full"])[1] > rgb(css["score-full"])[0]


def test_links_to_results_and_feedback_pages_point_at_files_or_say_they_are_not_there(klass, tmp_path):
    out, recs, _ = klass
    dom = Dom((out / "report/students-1.html").read_text())
    results = [a["href"] for a in dom.find("a") if a.get("data-link") == "results"]
    assert len(results) == len(recs)  # every record has its results.json, linked relative to the page
    for href in results:
        assert (out / "report" / href).resolve().is_file(), href
    assert not [a for a in dom.find("a") if a.get("data-link") == "feedback"]
    assert len(dom.find("span", data_link="feedback-missing")) == len(recs)
    assert "not released yet" in " ".join(dom.text)
    feedback = tmp_path / "feedback"
    (feedback / "ann").mkdir(parents=True)
    (feedback / "ann/feedback.html").write_text("<p>ann</p>")
    pages = report.render(_manifest(out), recs, out, feedback=feedback)
    dom = Dom(pages["report/students-1.html"])
    hrefs = [a["href"] for a in dom.find("a") if a.get("data-link") == "feedback"]
    assert (
        len(hrefs) == 1
        and (out / "report" / hrefs[0]).resolve() == (feedback / "ann/feedback.html").resolve()
    )


def _manifest(out):
    from grader.farm.batch import read_manifest

    return read_manifest(out)


def test_the_overview_lists_failure_rates_highest_first_and_statistics_per_part(klass):
    _out, _recs, path = klass
    dom = Dom(path.read_text())
    rates = [float(a["data-failure-rate"]) for a in dom.find("tr") if "data-test" in a]
    assert rates == sorted(rates, reverse=True) and len(rates) == 4
    assert [a["data-part"] for a in dom.find("tr") if "data-part" in a] == ["1"]
    text = " ".join(dom.text)
    assert "Time per submission" in text and "slowest:" in text


@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found (apt-get install chromium) to render report.html"
)
def test_a_browser_shows_histogram_failure_rates_ratios_and_error_links(klass):
    out, recs, path = klass
    dom = Dom(dump_dom(path))
    svgs = dom.find("svg")
    assert [s["class"] for s in svgs] == ["scores", "part", "seconds", "ratios"]
    bars = [a for t, a in dom.elements if t == "rect"]
    score_bars = bars[:10]
    assert {b["data-bin"]: int(b["data-count"]) for b in score_bars if int(b["data-count"])} == {
        "0–10": 1,
        "30–40": 1,
        "90–100": 1,
        "10–20": 1,
    }
    rates = {a["data-test"]: float(a["data-failure-rate"]) for a in dom.find("tr") if "data-test" in a}
    assert rates == {
        "1.1 merge": pytest.approx(1 / 4, abs=1e-4),
        "1.2 train": pytest.approx(2 / 4, abs=1e-4),
        "2.1 encode": pytest.approx(3 / 4, abs=1e-4),
        "3.1 speed": pytest.approx(3 / 4, abs=1e-4),
    }
    ratio_svg = next(i for i, (t, a) in enumerate(dom.elements) if t == "svg" and a["class"] == "ratios")
    ratio_bars = {
        a["data-bin"]: int(a["data-count"])
        for t, a in dom.elements[ratio_svg:]
        if t == "rect" and int(a["data-count"])
    }
    assert ratio_bars == {"0.25–0.5": 2, "0.75–1": 1, "1.5–2": 1}
    assert [a["data-gate"] for a in dom.find("tr") if "data-gate" in a] == ["3.1 speed"]
    links = [a["href"] for a in dom.find("a") if a.get("data-why") == "not-graded"]
    assert links == ["report/students-1.html#student-dan", "report/students-1.html#student-eve"]
    page = Dom(dump_dom(out / "report/students-1.html"))
    for href in links:
        assert page.find("section", id=href.split("#")[1]), f"{href} points nowhere"
    text = " ".join(dom.text)
    assert recs["dan"]["message"] in " ".join(page.text) and "not a readable zip" in text
    assert "6 students" in text and "0 grader_error" in text and "2 unreadable_submission" in text
    assert "6 of 6 shown" in " ".join(page.text)  # the inline script ran: sorting and filtering are on


def _clone_class(klass, n: int, out):
    """A class of `n` students made of copies of the graded fake class's records, each failing test's
    output blown up to 100 kB (the pages must stay bounded whatever the grader wrote)."""
    import copy
    import shutil

    src, recs, _ = klass
    manifest = _manifest(src)
    names = [f"s{i:04d}" for i in range(n)]
    protos = sorted(recs)
    big = {}
    for i, s in enumerate(names):
        rec = copy.deepcopy(recs[protos[i % len(protos)]])
        rec["student"] = s
        for t in rec["tests"]:
            if float(t.get("score", 0)) < float(t.get("max_score", 0)):
                t["output"] = "AssertionError: <expected> & more\n" * 3000
        big[s] = rec
        results = records.student_dir(src, protos[i % len(protos)]) / "results.json"
        if results.is_file():
            (out / "students" / s).mkdir(parents=True)
            shutil.copy(results, out / "students" / s / "results.json")
    manifest.update(assigned=names, roster=names, submissions={}, pending=None)
    return manifest, big


@pytest.fixture(scope="module", params=[300, 2000])
def big_class(request, klass, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"class{request.param}")
    manifest, recs = _clone_class(klass, request.param, out)
    return out, recs, report.write(out, manifest, recs)


def _reachable(start):
    """Every page reached from `start` by following links, and the student sections on them."""
    seen, todo, sections = set(), [start.resolve()], set()
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        dom = Dom(page.read_text())
        sections |= {a["id"] for a in dom.find("section")}
        for a in dom.find("a"):
            target = a["href"].split("#")[0]
            if target.endswith(".html"):
                todo.append((page.parent / target).resolve())
    return seen, sections


def test_a_large_class_gets_bounded_pages_and_every_student_is_reachable(big_class):
    out, recs, path = big_class
    pages = _pages(out)
    assert len(pages) == 1 + -(-len(recs) // report_view.PAGE_SIZE)
    for page in pages:
        assert page.stat().st_size < 2_000_000, f"{page.name}: {page.stat().st_size} bytes"
    for page in pages[1:]:
        dom = Dom(page.read_text())
        rows = [a for a in dom.find("tr") if "data-status" in a]
        assert 0 < len(rows) <= report_view.PAGE_SIZE
        assert len(dom.find("section")) == len(rows)
    seen, sections = _reachable(path)
    assert {p.resolve() for p in pages} <= seen
    assert sections == {f"student-{s}" for s in recs}
    # the students pages chain from the first to the last by their next links
    page, chain = out / "report/students-1.html", []
    while page:
        chain.append(page.name)
        nxt = [a["href"] for a in Dom(page.read_text()).find("a") if a.get("data-nav") == "next"]
        page = out / "report" / nxt[0] if nxt else None
    assert chain == [p.name for p in sorted(pages[1:], key=lambda p: int(p.stem.split("-")[1]))]
    assert "cut here: the whole output is in results.json" in pages[1].read_text()


@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found (apt-get install chromium) to render report.html"
)
def test_a_browser_renders_the_overview_and_a_students_page_of_a_large_class(big_class):
    out, recs, path = big_class
    dom = Dom(dump_dom(path))
    assert f"{len(recs)} students" in " ".join(dom.text)
    assert len([a for a in dom.find("a") if "data-page" in a]) == -(-len(recs) // report_view.PAGE_SIZE)
    last = sorted((out / "report").glob("*.html"), key=lambda p: int(p.stem.split("-")[1]))[-1]
    page = Dom(dump_dom(last))
    rows = [a for a in page.find("tr") if "data-status" in a]
    assert f"{len(rows)} of {len(rows)} shown" in " ".join(page.text)  # the inline script ran
    assert [a["data-nav"] for a in page.find("a") if "data-nav" in a] == ["overview", "prev"] * 2


def test_speed_ratios_are_read_from_the_recorded_figures_never_from_words():
    from grader.farm.speed import ratio_of

    words = {"output": "train_bpe took 0.35 s of CPU time: 0.16x the budget of 2.22 s (...)."}
    assert ratio_of(words) is None
    assert ratio_of({"extra_data": {"figures": {"measure": "cpu_seconds", "ratio": 0.42}}}) == 0.42
    memory = {"measure": "memory_bytes", "ratio": 0.2}
    assert ratio_of({"extra_data": {"figures": memory}}) is None


def test_speed_gate_figures_and_words_agree():
    """The gate's words (grader/checks/speed.py) state the ratio its figures hold."""
    from grader.budgets import Budget
    from grader.checks import speed

    budget = Budget(2.0, "6 x the reference")
    f = speed.figures("training", 0.35, budget)
    assert f["ratio"] == pytest.approx(0.175) and f["measure"] == "cpu_seconds" and not f["stopped"]
    ok, text = speed.verdict(0.35, budget, "train_bpe on 1 MB", "hint")
    assert ok and f"{f['ratio']:.2f}x the budget" in text
    assert speed.margin(f) == "training: 0.17x of the budget"
    stopped = speed.figures("training", budget.abort_after, budget, stopped=True)
    assert speed.margin(stopped).startswith("training: stopped at more than 1.50x")


# Appended to a copy of a students page: what the browser laid out, as an attribute the DOM dump keeps.
_MEASURE = """<script>
window.addEventListener("load", function () {
  var m = document.querySelector("table.matrix"), box = m.parentElement;
  var cols = m.tHead.rows[0].cells, last = cols[cols.length - 1].getBoundingClientRect();
  document.body.dataset.measure = JSON.stringify({
    table: m.scrollWidth, box: box.clientWidth, last_right: last.right,
    viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth});
});
</script></body>"""


def _kit_class(n: int) -> tuple[dict, dict]:
    """`n` students graded on the kit's own rubric (41 tests), made as records: the matrix's width
    depends on the rubric, not on what the tests did."""
    from grader import rubric
    from grader.farm import current
    from grader.paths import DEFAULT_RUBRIC

    table = current.rubric_table(rubric.load(DEFAULT_RUBRIC))
    names = [f"student{i:03d}" for i in range(n)]
    recs = {}
    for i, s in enumerate(names):
        tests = [
            {
                "number": t["number"],
                "name": t["name"],
                "score": (t["points"], 0, t["points"] / 2)[(i + j) % 3],
                "max_score": t["points"],
                "output": "",
                "kit": "k",
                "submission": "f",
            }
            for j, t in enumerate(table)
        ]
        recs[s] = {
            "student": s,
            "status": "graded",
            "message": "",
            "tests": tests,
            "timing": {"seconds": 12.0, "started": "2026-11-21T00:00:00+00:00"},
            "isolation": "namespaces",
            "kit": "k",
            "submission": "f",
            "run": "r",
            "source": s,
        }
    manifest = {"rubric": table, "assigned": names, "roster": names, "kit": "k", "pending": None}
    return {**manifest, "submissions": dict.fromkeys(names, "f")}, recs


@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found (apt-get install chromium) to lay the page out"
)
def test_who_failed_what_fits_a_1366_px_screen_for_the_kits_rubric(tmp_path):
    import json

    manifest, recs = _kit_class(300)
    report.write(tmp_path, manifest, recs)
    page = tmp_path / "report/students-1.html"
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text().replace("</body>", _MEASURE))
    dom = Dom(dump_dom(probe, window="1366,900"))
    body = next(a for t, a in dom.elements if t == "body")
    m = json.loads(body["data-measure"])
    assert len(manifest["rubric"]) >= 41
    # every test's column (the efficiency tests are the last ones) is on screen, with no scrolling
    assert m["table"] <= m["box"] and m["last_right"] <= m["viewport"] and m["page"] <= m["viewport"], m


def test_the_class_report_counts_borderline_and_failed_timings_from_their_recorded_verdicts():
    """A borderline timing passed (grader/checks/timing_rule.py): the class report counts it apart
    from the failed ones, from the verdict each gate recorded, never from the ratio alone."""
    from grader.farm import records
    from grader.farm.report_view import _speed

    def rec(ratio: float, verdict: str | None) -> dict:
        figures = {"measure": "cpu_seconds", "ratio": ratio, **({"verdict": verdict} if verdict else {})}
        return {
            "status": records.GRADED,
            "tests": [{"number": "E.1", "name": "training speed", "extra_data": {"figures": figures}}],
        }

    recs = {
        "ann": rec(0.4, "pass"),
        "ben": rec(1.08, "borderline"),
        "cat": rec(1.2, "fail"),
        "dan": rec(1.5, None),  # a record written before verdicts were recorded: over 1 failed
        "eve": rec(0.9, None),
    }
    speed = _speed(recs)
    assert (speed["n"], speed["borderline"], speed["failed"]) == (5, 1, 2)
    [gate] = speed["gates"]
    assert (gate["gate"], gate["borderline"], gate["failed"]) == ("E.1 training speed", 1, 2)
