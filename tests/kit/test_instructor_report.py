"""report.html: self-contained, and what a browser shows matches the class's results."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader.farm import records, report
from grader.farm.batch import grade_all

sys.path.insert(0, str(Path(__file__).parent))
from instructor_fakes import make_submission, write_suite

CHROMIUM = next(
    (
        p
        for p in ("/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or "")
        if p and Path(p).exists()
    ),
    None,
)


def dump_dom(html_file: Path) -> str:
    """The DOM after headless Chromium loaded the page, with the network left off."""
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--dump-dom",
                html_file.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


class Dom(HTMLParser):
    """Just enough of the DOM to assert on: elements with their attributes, and the visible text."""

    def __init__(self, text):
        super().__init__()
        self.elements, self.text, self._skip = [], [], 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._skip += tag in ("style", "title")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "title") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)

    def find(self, tag, **attrs):
        return [
            a
            for t, a in self.elements
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


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


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("train_bpe took 0.35 s of CPU time: 0.16x the budget of 2.22 s (6 x the reference).", [0.16]),
        (
            "encode was stopped after 3.24 s of CPU time: more than 1.5x its time budget of 2.16 s (...)",
            [1.5],
        ),
        ("ratio to budget: 0.42", [0.42]),
        ("encode_iterable over a 4.0 MB file grew your program's memory by 2.9 MB", []),
    ],
)
def test_speed_ratios_are_read_from_the_gates_feedback(text, want):
    from grader.farm.speed import ratios_in

    assert ratios_in(text) == want


def test_speed_gate_feedback_of_the_real_grader_is_understood():
    """The gate's own wording (grader/feedback/speed.py) parses back to the ratio it states."""
    speed = pytest.importorskip("grader.feedback.speed")
    from grader.calibration import Budget
    from grader.farm.speed import ratios_in

    ok, text = speed.verdict(0.35, Budget(2.0, "6 x the reference"), "train_bpe on 1 MB", "hint")
    assert ratios_in(text) == [pytest.approx(0.175, abs=0.005)]
    ok, text = speed.verdict(5.0, Budget(2.0, "6 x the reference"), "train_bpe on 1 MB", "hint")
    assert not ok and ratios_in(text) == [2.5]
