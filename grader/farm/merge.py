"""Combine shard outputs into one class output, saying what is missing or graded twice."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..errors import MergeError
from . import gradebook, records
from .batch import MANIFEST

_RANK = {records.GRADED: 0, records.UNREADABLE: 1, records.GRADER_ERROR: 2}


@dataclass
class MergeReport:
    students: int = 0
    missing: list[str] = field(default_factory=list)  # on a roster, graded nowhere
    duplicates: dict[str, list[str]] = field(default_factory=dict)  # student -> inputs holding them
    problems: list[str] = field(default_factory=list)  # shard coverage, roster mismatches

    @property
    def complete(self) -> bool:
        return not (self.missing or self.problems or self.duplicates)

    def lines(self) -> list[str]:
        out = [f"merged {self.students} students"]
        out += [f"problem: {p}" for p in self.problems]
        if self.missing:
            out.append(f"missing ({len(self.missing)}): " + ", ".join(self.missing))
        for s, where in sorted(self.duplicates.items()):
            out.append(f"duplicate: {s} appears in " + ", ".join(where) + " (kept the best-graded one)")
        return out


def _load(inp: Path) -> tuple[dict, dict[str, dict]]:
    try:
        manifest = json.loads((inp / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise MergeError(f"{inp}: not a farm output (no readable {MANIFEST})") from None
    if not isinstance(manifest, dict) or "roster" not in manifest or "assigned" not in manifest:
        raise MergeError(f"{inp}/{MANIFEST}: not a farm manifest")
    recs = records.read_records(inp)
    # Only the students this output was responsible for: an output folder reused for another shard
    # may still hold records of students that are now someone else's.
    return manifest, {s: recs[s] for s in manifest["assigned"] if s in recs}


def _check_shards(manifests: list[tuple[Path, dict]], report: MergeReport) -> None:
    shards = [(p, m.get("shard")) for p, m in manifests]
    sharded = [(p, s) for p, s in shards if s]
    if not sharded:
        return
    totals = {s[1] for _, s in sharded}
    if len(totals) > 1 or len(sharded) != len(shards):
        report.problems.append(
            "inputs were sharded differently: "
            + ", ".join(f"{p.name}={'/'.join(map(str, s)) if s else 'unsharded'}" for p, s in shards)
        )
        return
    n = totals.pop()
    seen: dict[int, list[str]] = {}
    for p, (k, _) in sharded:
        seen.setdefault(k, []).append(p.name)
    lost = [k for k in range(1, n + 1) if k not in seen]
    if lost:
        report.problems.append(f"shards missing: {', '.join(f'{k}/{n}' for k in lost)}")
    for k, names in sorted(seen.items()):
        if len(names) > 1:
            report.problems.append(f"shard {k}/{n} given more than once: {', '.join(names)}")


def merge(inputs: list[Path], out: Path) -> MergeReport:
    report = MergeReport()
    out_r = out.resolve()
    if any(p.resolve() == out_r for p in inputs):
        raise MergeError(f"{out}: the merged output must be a new directory, not one of the inputs")
    loaded = [(p, *_load(p)) for p in inputs]
    _check_shards([(p, m) for p, m, _ in loaded], report)
    rosters = {tuple(m["roster"]) for _, m, _ in loaded}
    if len(rosters) > 1:
        report.problems.append(
            "the inputs were graded from different submission directories (rosters differ)"
        )
    roster = sorted({s for r in rosters for s in r})
    holders: dict[str, list[tuple[Path, dict]]] = {}
    for p, _, recs in loaded:
        for s, rec in recs.items():
            holders.setdefault(s, []).append((p, rec))
    # Graded twice: keep the best status (graded > unreadable > grader error), then the latest run.
    chosen = {
        s: min(held, key=lambda h: (_RANK[h[1]["status"]], _later_first(h[1]))) for s, held in holders.items()
    }
    report.duplicates = {s: [p.name for p, _ in held] for s, held in holders.items() if len(held) > 1}
    report.missing = [s for s in roster if s not in chosen]
    out.mkdir(parents=True, exist_ok=True)
    for s, (p, _) in sorted(chosen.items()):
        dest = records.student_dir(out, s)
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(records.student_dir(p, s), dest)
    merged = {s: rec for s, (_, rec) in sorted(chosen.items())}
    records.write_json_atomic(
        out / MANIFEST,
        {
            "format": 1,
            "source": None,
            "shard": None,
            "merged_from": [str(p) for p in inputs],
            "roster": roster,
            "assigned": roster,
            "status": {s: r["status"] for s, r in merged.items()},
        },
    )
    gradebook.write(out, merged)
    report.students = len(merged)
    return report


def _later_first(rec: dict) -> float:
    """Sort key putting the most recently started grading first (ISO timestamps; unknown = oldest)."""
    try:
        return -datetime.fromisoformat(rec["timing"]["started"]).timestamp()
    except (KeyError, TypeError, ValueError):
        return 0.0
