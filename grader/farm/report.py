"""report.html: one self-contained page (inline CSS and SVG, no scripts, no external resources).

Shows the stale results first (graded by another kit or submission than today's: they may not be
the grade), then the score histogram, how often each test fails, the distribution of speed-gate
ratios, the students the grader could not fully grade (each linking to that student's feedback
further down the page), and every student's feedback.
"""

from __future__ import annotations

import statistics
from html import escape
from pathlib import Path

from . import records
from .gradebook import rows, test_column
from .speed import ratios

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:62rem;padding:0 1rem;color:#1d232a}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ccd;padding-bottom:.2rem}
table{border-collapse:collapse;width:100%}td,th{padding:.25rem .5rem;border-bottom:1px solid #e3e6ea;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.bar{background:#c0392b;height:.8rem;display:inline-block}
.graded{color:#1e7b34}.grader_error,.interrupted{color:#b3261e;font-weight:600}.unreadable_submission,.timed_out{color:#9a6700;font-weight:600}
.stale{background:#fff3cd;border:2px solid #9a6700;padding:.5rem 1rem}
pre{white-space:pre-wrap;background:#f5f6f8;padding:.5rem;border-radius:4px;font-size:13px;margin:.2rem 0}
section.student{border-top:1px solid #e3e6ea;padding-top:.4rem}.kpi span{margin-right:1.6rem}
svg text{font:12px system-ui,sans-serif;fill:#1d232a}
"""
OUTPUT_CAP = 4000


def histogram_svg(counts: list[int], labels: list[str], *, title: str, css_class: str) -> str:
    """Vertical bars, one per bin, each with its count above and its label below."""
    w, h, pad, bw = 640, 220, 30, 640 // max(len(counts), 1)
    top = max(counts) if counts and max(counts) else 1
    parts = [
        f'<svg class="{css_class}" role="img" aria-label="{escape(title)}" width="{w}" '
        f'height="{h + 2 * pad}" viewBox="0 0 {w} {h + 2 * pad}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for i, (c, label) in enumerate(zip(counts, labels)):
        bh = round(h * c / top)
        x = i * bw
        parts.append(
            f'<rect data-bin="{escape(label)}" data-count="{c}" x="{x + 2}" y="{pad + h - bh}" '
            f'width="{bw - 4}" height="{bh}" fill="#3867d6"/>'
        )
        parts.append(f'<text x="{x + bw / 2}" y="{pad + h - bh - 4}" text-anchor="middle">{c}</text>')
        parts.append(f'<text x="{x + bw / 2}" y="{pad + h + 16}" text-anchor="middle">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def score_bins(totals: list[float], max_total: float) -> tuple[list[int], list[str]]:
    """Ten bins of equal width over 0..max; a full score falls in the last bin."""
    step = max_total / 10 if max_total > 0 else 10
    counts = [0] * 10
    for t in totals:
        counts[min(int(t // step), 9) if t > 0 else 0] += 1
    labels = [f"{i * step:g}–{(i + 1) * step:g}" for i in range(10)]
    return counts, labels


RATIO_EDGES = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0]


def ratio_bins(values: list[float]) -> tuple[list[int], list[str]]:
    counts = [0] * (len(RATIO_EDGES) + 1)
    for v in values:
        counts[sum(v >= e for e in RATIO_EDGES)] += 1
    lows = [0.0] + RATIO_EDGES
    labels = [f"{lo:g}–{hi:g}" for lo, hi in zip(lows, RATIO_EDGES)] + [f"≥{RATIO_EDGES[-1]:g}"]
    return counts, labels


def _student_section(r: dict, rec: dict | None) -> str:
    s = r["student"]
    head = (
        f'<section class="student" id="student-{escape(s)}"><h3>{escape(s)} — '
        f'<span class="{r["status"]}">{r["status"]}</span>'
    )
    if r["total"] is not None:
        head += f" — {r['total']:g}/{r['max_total']:g}"
    if r["stale"]:
        head += ' — <span class="stale">STALE: ' + escape(" ".join(r["stale"])) + "</span>"
    parts = [head + "</h3>"]
    if rec is not None:
        parts.append(f"<p>submitted as <code>{escape(rec['source'])}</code></p>")
    if r["reason"]:
        parts.append(f"<pre>{escape(r['reason'])}</pre>")
    if rec is not None and rec.get("details"):
        parts.append(
            f"<details><summary>grader output</summary><pre>{escape(rec['details'])}</pre></details>"
        )
    for t in (rec or {}).get("tests", []):
        ok = float(t.get("score", 0)) >= float(t.get("max_score", 0))
        out = str(t.get("output") or "")[:OUTPUT_CAP]
        parts.append(
            f"<details{'' if ok else ' open'}><summary>{escape(test_column(t))}: "
            f"{float(t.get('score', 0)):g}/{float(t.get('max_score', 0)):g}</summary>"
            + (f"<pre>{escape(out)}</pre>" if out else "")
            + "</details>"
        )
    return "".join(parts) + "</section>"


def render(manifest: dict, recs: dict[str, dict], *, title: str = "bpe-kit class report") -> str:
    cols, table = rows(manifest, recs)
    graded = [r for r in table if r["status"] == records.GRADED]
    totals = [r["total"] for r in graded]
    max_total = max((r["max_total"] or 0 for r in graded), default=100.0) or 100.0
    counts = {s: sum(r["status"] == s for r in table) for s in records.STATUSES}
    kpi = [f"<span>{len(table)} students</span>"] + [
        f'<span class="{s}">{n} {s}</span>' for s, n in counts.items()
    ]
    if totals:
        kpi.append(
            f"<span>mean {statistics.fmean(totals):.1f}</span><span>median {statistics.median(totals):g}</span>"
        )
    body = [f"<h1>{escape(title)}</h1>", f'<p class="kpi">{"".join(kpi)}</p>']
    stale = [r for r in table if r["stale"]]
    if stale:
        body.append(
            f'<div class="stale" id="stale"><strong>STALE: {len(stale)} student(s) have results graded by '
            "another kit or submission than today's; they may not be the grade. Regrade them (rerun "
            "without --keep-stale).</strong><ul>"
            + "".join(
                f'<li><a href="#student-{escape(r["student"])}">{escape(r["student"])}</a>: '
                f"{escape(' '.join(r['stale']))}</li>"
                for r in stale
            )
            + "</ul></div>"
        )

    body.append('<h2 id="scores">Score histogram</h2>')
    if totals:
        c, labels = score_bins(totals, max_total)
        body.append(
            histogram_svg(c, labels, title=f"totals of {len(totals)} graded students", css_class="scores")
        )
    else:
        body.append("<p>No student was graded.</p>")

    body.append('<h2 id="failures">Failure rate per test</h2>')
    if graded and cols:
        body.append('<table class="failures"><tr><th>test</th><th>failed</th><th></th></tr>')
        for col in cols:
            maxes = {}
            for rec in recs.values():
                for t in rec["tests"]:
                    if test_column(t) == col:
                        maxes[rec["student"]] = float(t.get("max_score", 0))
            took = [r for r in graded if col in r["points"]]
            failed = sum(r["points"][col] < maxes.get(r["student"], 0) for r in took)
            rate = failed / len(took) if took else 0.0
            body.append(
                f'<tr data-test="{escape(col)}" data-failure-rate="{rate:.4f}"><td>{escape(col)}</td>'
                f'<td class="n">{failed}/{len(took)} ({rate:.0%})</td>'
                f'<td><span class="bar" style="width:{rate * 12:.2f}rem"></span></td></tr>'
            )
        body.append("</table>")
    else:
        body.append("<p>No test results.</p>")

    body.append('<h2 id="speed">Speed-gate ratios</h2>')
    rs = ratios(
        {s: {"results": {"tests": r["tests"]}} for s, r in recs.items() if r["status"] == records.GRADED}
    )
    if rs:
        c, labels = ratio_bins([v for _, _, v in rs])
        over = sum(v >= 1 for _, _, v in rs)
        body.append(
            f"<p>time taken ÷ calibrated budget, as the speed tests recorded it: {len(rs)} measurements, "
            f"{over} at or over budget (≥ 1 fails).</p>"
        )
        body.append(histogram_svg(c, labels, title="speed-gate ratios", css_class="ratios"))
        body.append(
            '<table class="gates"><tr><th>gate</th><th>measured</th><th>median</th><th>max</th>'
            "<th>over budget</th></tr>"
        )
        for gate in sorted({g for _, g, _ in rs}):
            vs = [v for _, g, v in rs if g == gate]
            body.append(
                f'<tr data-gate="{escape(gate)}"><td>{escape(gate)}</td><td class="n">{len(vs)}</td>'
                f'<td class="n">{statistics.median(vs):.2f}</td><td class="n">{max(vs):.2f}</td>'
                f'<td class="n">{sum(v >= 1 for v in vs)}</td></tr>'
            )
        body.append("</table>")
    else:
        body.append("<p>No speed gate recorded a ratio.</p>")

    body.append('<h2 id="errors">Not graded</h2>')
    bad = [r for r in table if r["status"] != records.GRADED]
    if bad:
        body.append('<ul class="errors">')
        for r in bad:
            body.append(
                f'<li class="{r["status"]}"><a href="#student-{escape(r["student"])}">{escape(r["student"])}</a>'
                f" — {r['status']}: {escape(r['reason'][:300])}</li>"
            )
        body.append("</ul>")
    else:
        body.append("<p>Every submission was graded.</p>")

    body.append('<h2 id="feedback">Feedback per student</h2>')
    body += [_student_section(r, recs.get(r["student"])) for r in table]
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )


def write(out: Path, manifest: dict, recs: dict[str, dict]) -> Path:
    path = out / "report.html"
    records.write_text_atomic(path, render(manifest, recs))
    return path
