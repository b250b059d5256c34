"""The grading figures the kit quotes, from one `make bench` run: one record, one rendering.

README.md's "Performance" and "Scaling out" quote a grade's seconds and the farm's throughput; they
must say what the bench measured, with the load it ran at, and nothing else. So a bench run that
measured the grading section (not `--quick`) writes its figures to `bench/published.json`
(committed), and this module renders them into README.md between its markers. A kit test checks
that README holds exactly that rendering, so no page quotes a figure of its own.

    python -m bench.published     # rewrite README.md's block from bench/published.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "bench" / "published.json"
README = ROOT / "README.md"
BEGIN, END = "<!-- bench-grading:begin -->", "<!-- bench-grading:end -->"
_BLOCK = re.compile(re.escape(BEGIN) + r"\n(?:(.*?)\n)?" + re.escape(END), re.S)
CLASS, SHARDS = 300, 8  # the class and the shards README's "Scaling out" plans with


def from_report(report: dict) -> dict | None:
    """The figures to publish from one bench report, or None when it did not measure grading."""
    g, meta = report.get("grading", {}), report.get("meta", {})
    if "seconds" not in g or meta.get("quick"):
        return None
    farm, part2, starter = g.get("farm", {}), g.get("part2", {}), g.get("starter", {})
    return {
        "date": meta.get("date"),
        "commit": meta.get("commit"),
        "machine": meta.get("machine"),
        "load_before": meta.get("load_before"),
        "load_after": meta.get("load_after"),
        "runs": len(g.get("all_seconds", [])),
        "full_s": round(g["seconds"], 1),
        "part2_s": round(part2["seconds"], 1) if "seconds" in part2 else None,
        "starter_s": round(starter["seconds"], 1) if "seconds" in starter else None,
        "farm": {k: farm[k] for k in ("students", "jobs", "seconds", "per_hour") if k in farm} or None,
        "targets": [t for t in report.get("targets", []) if t.get("met") is not None],
    }


def render(figures: dict) -> str:
    """README's block: what was measured, where, at what load, and against which target."""
    lines = [
        f"Measured by `make bench` (grading section) on {figures['date']}, commit {figures['commit']}, "
        f"{figures['machine']}; load average {figures['load_before']} before, "
        f"{figures['load_after']} after. Seconds are wall clock, medians of {figures['runs']} "
        "runs for the full grade.",
        "",
        "| what | measured | target |",
        "|---|---|---|",
    ]
    target_of = {t["target"]: t for t in figures.get("targets", [])}

    def row(what: str, value: str, key: str) -> None:
        t = next((t for name, t in target_of.items() if key in name), None)
        verdict = "—" if t is None else f"{t['target']}: {'met' if t['met'] else '**missed**'}"
        lines.append(f"| {what} | {value} | {verdict} |")

    row(
        "a full grade of the reference (`make grade SUBMISSION=solution`)",
        f"{figures['full_s']:.1f} s",
        "full grade",
    )
    if figures.get("part2_s") is not None:
        row("a Part-2-only grade (`make grade PART=2`)", f"{figures['part2_s']:.1f} s", "PART=2")
    if figures.get("starter_s") is not None:
        row("the untouched starter (`make grade`)", f"{figures['starter_s']:.1f} s", "starter")
    farm = figures.get("farm")
    if farm:
        row(
            f"a class of {farm['students']} copies of the reference (`make class JOBS={farm['jobs']}`)",
            f"{farm['seconds']:.1f} s: {farm['per_hour']:.0f} an hour",
            "hour",
        )
        one = CLASS / farm["per_hour"] * 60
        lines += [
            "",
            f"At that rate a class of {CLASS} takes about {one:.0f} minutes on this one machine, and "
            f"about {one / SHARDS:.0f} minutes on {SHARDS} such machines (`--shard K/{SHARDS}`), plus "
            "their setup.",
        ]
    return "\n".join(lines)


def write_record(report: dict, path: Path = RECORD) -> bool:
    """Keep this run's grading figures as the published ones; False when it measured none."""
    figures = from_report(report)
    if figures is None:
        return False
    path.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def block(text: str) -> str | None:
    """README's current block, or None without its markers."""
    m = _BLOCK.search(text)
    return (m.group(1) or "") if m else None


def update_readme(readme: Path = README, record: Path = RECORD) -> None:
    figures = json.loads(record.read_text(encoding="utf-8"))
    text = readme.read_text(encoding="utf-8")
    if block(text) is None:
        raise SystemExit(f"{readme}: no {BEGIN} ... {END} block to fill")
    new = _BLOCK.sub(lambda _: f"{BEGIN}\n{render(figures)}\n{END}", text)
    readme.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    update_readme()
    sys.exit(0)
