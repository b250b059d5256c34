"""`make bench` on tiny sizes: the harness runs end to end, writes its report, and the
implementations it compares agree. No timing is asserted here: speed is only ever reported."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.paths import KIT_ROOT as ROOT

RUN = ROOT / "bench" / "run.py"
pytestmark = pytest.mark.slow  # a few seconds of subprocesses in all


def bench(*args: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(RUN), *args, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path_factory.mktemp("bench")
    return bench("--quick", out=out), out


def test_quick_run_writes_the_report(quick):
    done, out = quick
    assert done.returncode == 0, done.stderr
    md = (out / "bench.md").read_text()
    for heading in ("### Training", "### Encoding", "### Grading", "### Scaling"):
        assert heading in md
        assert heading in done.stdout  # the same report is printed
    report = json.loads((out / "bench.json").read_text())
    assert report["meta"]["quick"] is True and report["meta"]["runs"] == 1
    assert not any(k.startswith("_") for row in report["training"] for k in row)


def test_reference_and_naive_trainers_learn_the_same_merges(quick):
    _, out = quick
    rows = json.loads((out / "bench.json").read_text())["training"]
    naive = [r for r in rows if r["contender"] == "naive"]
    assert len(naive) == 1 and naive[0]["status"] == "ok"
    assert naive[0]["agreement"] == "identical merges"
    for r in rows:
        if r["contender"] == "reference":
            assert r["status"] == "ok" and r["seconds"] > 0 and r["peak_rss_mb"] > 0
            assert r["vocab_out"] == r["vocab_size"]


def test_optional_contenders_run_when_installed_and_are_skipped_otherwise(quick):
    _, out = quick
    report = json.loads((out / "bench.json").read_text())
    rows = report["training"] + report["encoding"]["rows"]
    for contender, module in (("hf", "tokenizers"), ("tiktoken", "tiktoken"), ("bpeasy", "bpeasy")):
        mine = [r for r in rows if r["contender"] == contender]
        assert mine, contender
        for r in mine:
            if installed(module):
                assert r["status"] == "ok", r
            else:
                assert r["status"] == "skipped" and "not installed" in r["note"]


def test_every_encoder_that_ran_gives_the_references_ids(quick):
    _, out = quick
    enc = json.loads((out / "bench.json").read_text())["encoding"]
    ran = [r for r in enc["rows"] if r["status"] == "ok"]
    assert {r["label"] for r in ran} >= {"reference (empty cache)", "reference (warm cache)"}
    assert enc["mismatches"] == []
    assert all(r["ids_agree"] for r in ran)
    assert len({r["n_ids"] for r in ran}) == 1 and ran[0]["n_ids"] > 0


def test_only_runs_the_sections_asked_for(tmp_path):
    done = bench("--quick", "--only", "scaling", out=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "bench.json").read_text())
    assert "scaling" in report and "training" not in report and "encoding" not in report
    by_size = report["scaling"]["by_size"]
    assert [r["corpus_mb"] for r in by_size] == sorted(r["corpus_mb"] for r in by_size)
    assert all(r["reference_s"] > 0 for r in by_size)


def test_bad_arguments_get_one_line_and_no_traceback(tmp_path):
    done = bench("--runs", "0", out=tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "--runs" in done.stderr
    assert not (tmp_path / "bench.json").exists()


def test_a_capped_job_is_stopped_and_reported(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import measure

    outcome, _, _ = measure.run_process([sys.executable, "-c", "import time; time.sleep(60)"], timeout_s=0.5)
    assert outcome.timed_out and not outcome.ok
    assert "stopped after 0.5 s" in outcome.error


def test_targets_are_judged_from_the_rows_the_run_measured(quick, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import targets

    _, out = quick
    report = json.loads((out / "bench.json").read_text())
    judged = {t["target"]: t for t in targets.evaluate(report, big_mb=0.05)}
    assert all(t["met"] in (True, False, None) for t in judged.values())
    memory = next(t for name, t in judged.items() if "memory" in name)
    assert memory["met"] is not None and "0.05 MB" in memory["measured"]
    grading = [t for name, t in judged.items() if "grade" in name or "hour" in name]
    assert grading and all(t["met"] is None for t in grading)  # --quick does not grade


def test_a_jobs_peak_memory_is_its_own_not_the_benchs(tmp_path):
    # Linux hands a parent's peak RSS down to the children it forks; the bench has one of ~200 MB
    # after generating a 25 MB corpus, and a 25 MB training row once reported exactly that.
    from bench import measure

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat. " * 2000, encoding="utf-8")
    ballast = bytearray(300 << 20)
    ballast[:: 1 << 12] = b"x" * len(ballast[:: 1 << 12])  # touch every page: this process peaks above 300 MB
    outcome = measure.run_job(
        {"kind": "train", "contender": "reference", "input": str(corpus), "vocab_size": 300, "specials": []},
        timeout_s=300,
    )
    del ballast
    assert outcome.ok, outcome.error
    assert 5 < outcome.peak_rss_mb < 150


def test_the_grading_section_says_where_a_grades_seconds_go(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import report

    split = {
        "tests_s": 22.0,
        "startup_s": 2.4,
        "by_part": {"part 3": 9.3},
        "slowest": [{"test": "E.3 x", "seconds": 4.9}],
    }
    section = {
        "seconds": 25.5,
        "all_seconds": [25.5, 25.4],
        "score": 100,
        "split": split,
        "part2": {
            "part": "2",
            "seconds": 5.6,
            "command": "python -m grader grade solution --part 2",
            "split": split,
        },
    }
    text = "\n".join(report.grading_md(section))
    assert "25.5 s (median of 2), score 100" in text
    assert "a Part-2-only grade (`python -m grader grade solution --part 2`) | 5.6 s" in text
    assert "the full grade: start-up (pytest, collection, the sandbox check) | 2.4 s" in text
    assert "the tests (part 3 9.3 s) | 22.0 s" in text and "E.3 4.9 s" in text
    assert "Part-2" not in "\n".join(report.grading_md({k: v for k, v in section.items() if k != "part2"}))


def test_grading_targets_are_the_fast_loops_figures(monkeypatch):
    """A full grade ≤ 3 s, Part 2 ≤ 3 s, the starter ≤ 3 s, a batch ≥ 1,500 an hour; a real
    repository's layout graded in ≤ 15 s and ≥ 300 an hour: each judged from its own row, on
    either side of its line, and unmeasured rows left unjudged."""
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import targets

    def judged(full, part2, starter, per_hour, real=None, real_per_hour=None):
        report = {
            "grading": {
                "seconds": full,
                "part2": {"seconds": part2},
                "starter": {"seconds": starter},
                "farm": {"per_hour": per_hour, "jobs": 2},
            }
        }
        if real is not None:
            report["real_repo"] = {"seconds": real, "farm": {"per_hour": real_per_hour, "jobs": 2}}
        return [t["met"] for t in targets._grading(report)]

    assert judged(2.9, 2.9, 2.9, 1500, 14.9, 300) == [True] * 6
    assert judged(3.1, 3.1, 3.1, 1499, 15.1, 299) == [False] * 6
    assert judged(3.1, 2.0, 2.0, 1700) == [False, True, True, True, None, None]
    assert [t["met"] for t in targets._grading({})] == [None] * 6


def test_readme_quotes_exactly_the_published_grading_figures(monkeypatch):
    """One figure per fact: README's block is the rendering of bench/published.json."""
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import published

    figures = json.loads(published.RECORD.read_text(encoding="utf-8"))
    shown = published.block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert shown == published.render(figures), "run `python -m bench.published` after `make bench`"
    assert figures["load_before"] in shown and f"{figures['full_s']:.1f} s" in shown


def test_only_a_run_that_graded_publishes_and_what_it_shows(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import published

    meta = {
        "date": "d",
        "commit": "c",
        "machine": "m",
        "load_before": "0.3/0.2/0.1",
        "load_after": "1.0/0.5/0.2",
    }
    grading = {
        "seconds": 9.04,
        "all_seconds": [9.0, 9.1, 9.04],
        "part2": {"seconds": 2.5},
        "starter": {"seconds": 2.0},
        "farm": {"students": 8, "jobs": 2, "seconds": 40.0, "per_hour": 720.0},
    }
    targets = [{"target": "full grade of the reference ≤ 10 s", "met": True, "measured": "9.0 s"}]
    assert published.from_report({"meta": {**meta, "quick": True}, "grading": grading}) is None
    assert published.from_report({"meta": meta, "grading": {"note": "not measured"}}) is None
    figures = published.from_report({"meta": meta, "grading": grading, "targets": targets})
    text = published.render(figures)
    assert "load average 0.3/0.2/0.1 before, 1.0/0.5/0.2 after" in text and "medians of 3" in text
    assert "| 9.0 s | full grade of the reference ≤ 10 s: met |" in text
    assert "40.0 s: 720 an hour" in text and "a class of 300 takes about 25 minutes" in text
