"""What report.html and its student pages show, as plain data for the templates (grader/farm/templates/).

The report is split so that it stays usable for 2,000 students: `report.html` is the overview
(counts, score statistics overall and per part, failure rate per test, time per submission,
speed-gate ratios, and every student the grader could not fully grade) and `report/students-K.html`
holds PAGE_SIZE students each: their table, the students x tests matrix, and their feedback.

A student's status and their score are two facts with two colours: `graded` is not a good grade,
and 0/100 is never shown as a success.
"""

from __future__ import annotations

import math
import os
import statistics
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from . import records
from .gradebook import rows, test_column
from .speed import ratios

if TYPE_CHECKING:
    from collections.abc import Callable

PAGE_SIZE = 200
PAGES_DIR = "report"
# Bounds on what one student's feedback adds to a page; results.json has the whole output.
OUTPUT_CAP = 1200
STUDENT_OUTPUT_CAP = 3000
RATIO_EDGES = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
SECONDS_EDGES = [5, 10, 20, 30, 60, 120, 300, 600]


def page_name(k: int) -> str:
    return f"students-{k}.html"


def histogram(counts: list[int], labels: list[str], *, title: str, css_class: str, width: int = 640) -> dict:
    """Vertical bars, one per bin, laid out for an inline SVG."""
    w, h, pad = width, 220 * width // 640, 30
    bw = w // max(len(counts), 1)
    top = max(counts, default=0) or 1
    bars = []
    for i, (c, label) in enumerate(zip(counts, labels)):
        bh = round(h * c / top)
        bars.append(
            {
                "label": label,
                "count": c,
                "x": i * bw + 2,
                "y": pad + h - bh,
                "width": bw - 4,
                "height": bh,
                "mid": i * bw + bw / 2,
                "count_y": pad + h - bh - 4,
                "label_y": pad + h + 16,
            }
        )
    return {"title": title, "css_class": css_class, "width": w, "height": h + 2 * pad, "bars": bars}


def score_bins(totals: list[float], max_total: float) -> tuple[list[int], list[str]]:
    """Ten bins of equal width over 0..max; a full score falls in the last bin."""
    step = max_total / 10 if max_total > 0 else 10
    counts = [0] * 10
    for t in totals:
        counts[min(int(t // step), 9) if t > 0 else 0] += 1
    labels = [f"{i * step:g}–{(i + 1) * step:g}" for i in range(10)]
    return counts, labels


def edge_bins(values: list[float], edges: list[float], unit: str = "") -> tuple[list[int], list[str]]:
    counts = [0] * (len(edges) + 1)
    for v in values:
        counts[sum(v >= e for e in edges)] += 1
    lows = [0.0] + edges
    labels = [f"{lo:g}–{hi:g}{unit}" for lo, hi in zip(lows, edges)] + [f"≥{edges[-1]:g}{unit}"]
    return counts, labels


def ratio_bins(values: list[float]) -> tuple[list[int], list[str]]:
    return edge_bins(values, RATIO_EDGES)


def stats(values: list[float]) -> dict | None:
    if not values:
        return None
    return {
        "n": len(values),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def score_class(total: float | None, max_total: float | None) -> str:
    """The colour of a score, apart from the status: full is green, 0 is red, never the reverse."""
    if total is None:
        return "score-none"
    if not max_total or total <= 0:
        return "score-zero"
    frac = total / max_total
    return "score-full" if frac >= 1 else "score-low" if frac < 0.5 else "score-part"


def _href(target: Path, base: Path) -> str:
    return quote(Path(os.path.relpath(target, base)).as_posix())


def _maxes(recs: dict[str, dict]) -> dict[tuple[str, str], float]:
    """(student, test column) -> that test's points possible, as the student's record says."""
    return {
        (rec["student"], test_column(t)): float(t.get("max_score", 0))
        for rec in recs.values()
        for t in rec["tests"]
    }


def _failure_rates(cols: list[str], graded: list[dict], maxes: dict) -> list[dict]:
    out = []
    for i, col in enumerate(cols):
        took = [r for r in graded if col in r["points"]]
        failed = sum(r["points"][col] < maxes.get((r["student"], col), 0) for r in took)
        rate = failed / len(took) if took else 0.0
        out.append({"test": col, "failed": failed, "took": len(took), "rate": rate, "order": i})
    return sorted(out, key=lambda f: (-f["rate"], f["order"]))


def _parts(manifest: dict, graded: list[dict]) -> list[dict]:
    """Score statistics per rubric part, over the graded students with every test of that part."""
    parts: dict[str, list[dict]] = {}
    for t in manifest["rubric"]:
        key = (
            "not recorded (graded before the report knew parts)" if t.get("part") is None else str(t["part"])
        )
        parts.setdefault(key, []).append(t)
    out = []
    for name, tests in parts.items():
        cols = [test_column(t) for t in tests]
        possible = float(sum(t["points"] for t in tests))
        scores = [sum(r["points"][c] for c in cols) for r in graded if all(c in r["points"] for c in cols)]
        c, _ = score_bins(scores, possible)
        labels = [f"{10 * i}–{10 * i + 10}%" for i in range(10)]  # short: these histograms are narrow
        out.append(
            {
                "part": name,
                "tests": len(tests),
                "possible": possible,
                "stats": stats(scores),
                "histogram": histogram(c, labels, title=f"part {name}", css_class="part", width=480)
                if scores
                else None,
            }
        )
    return out


def _speed(recs: dict[str, dict]) -> dict | None:
    rs = ratios(
        {s: {"results": {"tests": r["tests"]}} for s, r in recs.items() if r["status"] == records.GRADED}
    )
    if not rs:
        return None
    c, labels = ratio_bins([v for _, _, v, _ in rs])
    gates = []
    for gate in sorted({g for _, g, _, _ in rs}):
        vs = [v for _, g, v, _ in rs if g == gate]
        verdicts = [w for _, g, _, w in rs if g == gate]
        gates.append(
            {
                "gate": gate,
                "n": len(vs),
                "median": statistics.median(vs),
                "max": max(vs),
                "borderline": verdicts.count("borderline"),
                "failed": verdicts.count("fail"),
            }
        )
    return {
        "n": len(rs),
        "borderline": sum(w == "borderline" for *_, w in rs),
        "failed": sum(w == "fail" for *_, w in rs),
        "histogram": histogram(c, labels, title="speed-gate ratios", css_class="ratios"),
        "gates": gates,
    }


def _tests_of(rec: dict | None) -> list[dict]:
    """One student's tests for the feedback section, their output capped to keep pages bounded."""
    out, budget = [], STUDENT_OUTPUT_CAP
    for t in (rec or {}).get("tests", []):
        score, possible = float(t.get("score", 0)), float(t.get("max_score", 0))
        text = str(t.get("output") or "")
        shown = text[: max(0, min(OUTPUT_CAP, budget))]
        budget -= len(shown)
        out.append(
            {
                "name": test_column(t),
                "score": score,
                "max": possible,
                "passed": score >= possible,
                "output": shown,
                "cut": len(shown) < len(text),
            }
        )
    return out


def _stale_label(stale: list[str], everything: list[str]) -> str:
    if not stale:
        return ""
    return f"all {len(stale)} tests" if sorted(stale) == sorted(everything) else " ".join(stale)


def _stale_groups(table: list[dict], everything: list[str], link: Callable[[str], str]) -> list[dict]:
    """The stale students, grouped by which tests are stale (a rubric change makes a whole class stale)."""
    groups: dict[str, list[dict]] = {}
    for r in table:
        if r["stale"]:
            groups.setdefault(_stale_label(r["stale"], everything), []).append(
                {"student": r["student"], "href": link(r["student"])}
            )
    return [{"tests": k, "students": v} for k, v in groups.items()]


def _cell(r: dict, col: str, maxes: dict) -> dict:
    if col not in r["points"]:
        return {"state": "none", "text": "·", "title": f"{col.split(' ', 1)[0]}: not graded"}
    got, possible = r["points"][col], maxes.get((r["student"], col), 0.0)
    state = "pass" if got >= possible else "fail" if got <= 0 else "partial"
    return {
        "state": state,
        # a partial score in at most one decimal keeps the column narrow; the title has it whole
        "text": "✓" if state == "pass" else "✗" if state == "fail" else f"{round(got, 1):g}",
        "title": f"{col.split(' ', 1)[0]}: {got:g}/{possible:g}",
    }


def build(
    manifest: dict,
    recs: dict[str, dict],
    out: Path,
    *,
    feedback: Path | None = None,
    title: str = "bpe-kit class report",
    page_size: int = PAGE_SIZE,
    grades: dict | None = None,
) -> tuple[dict, list[dict]]:
    """(overview context, one context per students page). `feedback`: the folder `release --to`
    wrote (default OUT/feedback); links to pages not there yet say so instead. `grades`
    (grader/staff/cli.py: class_grades): `final`, each student's final score (None: no grade) when
    a late policy or overrides exist, shown beside the raw one; `missing`, the roster's students
    with no submission ({student, name}; None: not known); `roster`, the roster file read."""
    grades = grades or {}
    finals = grades.get("final")
    out = Path(out)
    feedback = Path(feedback) if feedback is not None else out / "feedback"
    pages_dir = out / PAGES_DIR
    cols, table = rows(manifest, recs)
    everything = [t["number"] for t in manifest["rubric"]]
    maxes = _maxes(recs)
    graded = [r for r in table if r["status"] == records.GRADED]
    totals = [r["total"] for r in graded]
    max_total = max((r["max_total"] or 0 for r in graded), default=100.0) or 100.0
    n_pages = max(1, math.ceil(len(table) / page_size))
    page_of = {r["student"]: i // page_size + 1 for i, r in enumerate(table)}

    def link(student: str) -> str:  # from report.html
        return f"{PAGES_DIR}/{page_name(page_of[student])}#student-{quote(student)}"

    counts = [
        {"status": s, "n": sum(r["status"] == s for r in table)} for s in (*records.STATUSES, "not_graded")
    ]
    counts = [c for c in counts if c["n"] or c["status"] != "not_graded"]
    incomplete = [r for r in table if r["reason"].startswith("INCOMPLETE")]
    seconds = [r["seconds"] for r in table if r["seconds"] is not None]
    sc, sl = edge_bins(seconds, SECONDS_EDGES, " s")
    final_totals = (
        [finals[r["student"]] for r in graded if finals.get(r["student"]) is not None] if finals else []
    )
    overview = {
        "title": title,
        "students": len(table),
        "missing": grades.get("missing"),
        "roster": grades.get("roster"),
        "finals": stats(final_totals) if finals is not None else None,
        "adjusted": finals is not None,
        "counts": counts,
        "incomplete": len(incomplete),
        "totals": stats(totals),
        "max_total": max_total,
        "scores": (
            histogram(
                *score_bins(totals, max_total),
                title=f"totals of {len(totals)} graded students",
                css_class="scores",
            )
            if totals
            else None
        ),
        "stale": _stale_groups(table, everything, link),
        "stale_students": sum(bool(r["stale"]) for r in table),
        "parts": _parts(manifest, graded),
        "failures": _failure_rates(cols, graded, maxes) if graded else [],
        "speed": _speed(recs),
        "time": (
            {
                **stats(seconds),
                "total": sum(seconds),
                "histogram": histogram(sc, sl, title="seconds per submission", css_class="seconds"),
                "slowest": [
                    {"student": r["student"], "seconds": r["seconds"], "href": link(r["student"])}
                    for r in sorted(table, key=lambda r: -(r["seconds"] or 0))[:10]
                    if r["seconds"] is not None
                ],
            }
            if seconds
            else None
        ),
        "not_graded": [
            {
                "student": r["student"],
                "status": r["status"],
                "reason": r["reason"][:300],
                "href": link(r["student"]),
            }
            for r in table
            if r["status"] != records.GRADED
        ],
        "incomplete_list": [{"student": r["student"], "href": link(r["student"])} for r in incomplete],
        "pages": [
            {
                "href": f"{PAGES_DIR}/{page_name(k)}",
                "number": k,
                "first": table[(k - 1) * page_size]["student"] if table else "",
                "last": table[min(k * page_size, len(table)) - 1]["student"] if table else "",
                "n": len(table[(k - 1) * page_size : k * page_size]),
            }
            for k in range(1, n_pages + 1)
        ],
    }

    pages = []
    for k in range(1, n_pages + 1):
        students = []
        for r in table[(k - 1) * page_size : k * page_size]:
            s = r["student"]
            results = records.student_dir(out, s) / "results.json"
            page = feedback / s / "feedback.html"
            students.append(
                {
                    "student": s,
                    "anchor": f"student-{s}",
                    "status": r["status"],
                    "total": r["total"],
                    "max_total": r["max_total"],
                    "score_class": score_class(r["total"], r["max_total"]),
                    "final": finals.get(s) if finals else None,
                    "final_class": score_class(finals.get(s), r["max_total"]) if finals else "",
                    "stale": _stale_label(r["stale"], everything),
                    "stale_tests": " ".join(r["stale"]),
                    "incomplete": r["reason"].startswith("INCOMPLETE"),
                    "reason": r["reason"],
                    "seconds": r["seconds"],
                    "isolation": r["isolation"],
                    "results_href": _href(results, pages_dir) if results.is_file() else None,
                    "feedback_href": _href(page, pages_dir) if page.is_file() else None,
                    "cells": [_cell(r, c, maxes) for c in cols],
                    "source": (recs.get(s) or {}).get("source", ""),
                    "details": str((recs.get(s) or {}).get("details") or "")[:OUTPUT_CAP],
                    "tests": _tests_of(recs.get(s)),
                }
            )
        pages.append(
            {
                "title": f"{title}: students {k} of {n_pages}",
                "number": k,
                "of": n_pages,
                "prev": page_name(k - 1) if k > 1 else None,
                "next": page_name(k + 1) if k < n_pages else None,
                "overview": "../report.html",
                "columns": [{"name": c, "number": c.split(" ", 1)[0]} for c in cols],
                "adjusted": finals is not None,
                "students": students,
                "feedback_dir": str(feedback),
            }
        )
    return overview, pages
