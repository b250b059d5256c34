"""Combine shard outputs into one class output, or refuse, naming every problem.

A merge writes nothing when anything is wrong: inputs graded by different kits (their grades are
not comparable), a shard missing or given twice, inputs from different submission folders, an
input whose run was interrupted, a record of an older format, students graded nowhere. A merge
copies each student's record as it is: its grade was built, once, from its own raw records
(grader/grade_builder.py), and a student is graded in one shard only. When shards overlap, the latest grading
of a student wins, and the kept copy is named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import write_json_atomic
from ..errors import MergeError
from . import records
from .batch import MANIFEST, not_readable, read_manifest
from .roster import roster_key


@dataclass
class MergeReport:
    students: int = 0
    missing: list[str] = field(default_factory=list)  # on a roster, graded nowhere
    duplicates: dict[str, tuple[list[str], str]] = field(default_factory=dict)  # -> (holders, kept)
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (self.missing or self.problems)

    def lines(self) -> list[str]:
        out = [f"problem: {p}" for p in self.problems]
        if self.missing:
            out.append(f"problem: missing ({len(self.missing)}): " + ", ".join(self.missing))
        for s, (where, kept) in sorted(self.duplicates.items()):
            out.append(f"duplicate: {s} is in {', '.join(where)}; kept the latest grading, from {kept}")
        if self.complete:
            out.insert(0, f"merged {self.students} students")
        else:
            out.append(f"nothing written: {len(self.problems) + bool(self.missing)} problem(s)")
        return out


def _load(inp: Path) -> tuple[dict, dict[str, dict]]:
    manifest = read_manifest(inp)
    if manifest is None:
        raise MergeError(not_readable(inp))
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
            + ", ".join(f"{p}={'/'.join(map(str, s)) if s else 'unsharded'}" for p, s in shards)
        )
        return
    n = totals.pop()
    seen: dict[int, list[str]] = {}
    for p, (k, _) in sharded:
        seen.setdefault(k, []).append(str(p))
    lost = [k for k in range(1, n + 1) if k not in seen]
    if lost:
        report.problems.append(f"shards missing: {', '.join(f'{k}/{n}' for k in lost)}")
    for k, names in sorted(seen.items()):
        if len(names) > 1:
            report.problems.append(f"shard {k}/{n} given more than once: {', '.join(names)}")


def merge(inputs: list[Path], out: Path) -> tuple[MergeReport, dict | None, dict[str, dict]]:
    """(report, merged manifest, merged records); the last two are None/{} when nothing was written."""
    report = MergeReport()
    out_r = out.resolve()
    if any(p.resolve() == out_r for p in inputs):
        raise MergeError(f"{out}: the merged output must be a new directory, not one of the inputs")
    loaded = [(p, *_load(p)) for p in inputs]
    kits = {m["kit"] for _, m, _ in loaded}
    if len(kits) > 1:
        report.problems.append(
            "the inputs were graded by different kits (regrade them with one kit): "
            + ", ".join(f"{p} by kit {m['kit']}" for p, m, _ in loaded)
        )
    for p, m, _ in loaded:
        if m.get("pending"):
            report.problems.append(
                f"{p}: its run was interrupted before it finished "
                f"({', '.join(sorted(m['pending']['students'], key=roster_key))}); rerun it first"
            )
    for p, m, _ in loaded:
        older = {s: f for s, f in records.older_records(p).items() if s in m["assigned"]}
        if older:
            report.problems.append(
                f"{p}: {len(older)} record(s) of an older format ({', '.join(sorted(older, key=roster_key))}), "
                f"which this farm (format {records.FORMAT}) cannot rebuild; regrade them with `farm grade` first"
            )
    _check_shards([(p, m) for p, m, _ in loaded], report)
    rosters = {tuple(m["roster"]) for _, m, _ in loaded}
    if len(rosters) > 1:
        report.problems.append(
            "the inputs were graded from different submission directories (rosters differ)"
        )
    roster = sorted({s for r in rosters for s in r}, key=roster_key)
    holders: dict[str, list[tuple[Path, dict]]] = {}
    for p, _, recs in loaded:
        for s, rec in recs.items():
            holders.setdefault(s, []).append((p, rec))
    # Graded twice: the latest grading wins (ISO timestamps in UTC compare as strings).
    chosen = {s: max(held, key=lambda h: h[1]["timing"]["started"]) for s, held in holders.items()}
    report.duplicates = {
        s: ([str(p) for p, _ in held], str(chosen[s][0])) for s, held in holders.items() if len(held) > 1
    }
    report.missing = [s for s in roster if s not in chosen]
    if not report.complete:
        return report, None, {}
    out.mkdir(parents=True, exist_ok=True)
    for s, (p, _) in chosen.items():
        src = records.student_dir(p, s)
        records.commit(out, s, {f.name: f.read_text(encoding="utf-8") for f in src.iterdir() if f.is_file()})
    merged = {s: chosen[s][1] for s in sorted(chosen, key=roster_key)}
    first = loaded[0][1]
    manifest = {
        "format": records.FORMAT,
        "source": None,
        "shard": None,
        "merged_from": [str(p) for p in inputs],
        "roster": roster,
        "assigned": roster,
        "strays": sorted({x for _, m, _ in loaded for x in m.get("strays", [])}, key=roster_key),
        "kit": first["kit"],
        "rubric": first["rubric"],
        "setup": first.get("setup"),
        "submissions": {s: fp for _, m, _ in loaded for s, fp in m.get("submissions", {}).items()},
        "pending": None,
    }
    write_json_atomic(out / MANIFEST, manifest)
    report.students = len(merged)
    return report, manifest, merged
