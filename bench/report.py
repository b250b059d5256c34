"""The bench's output: Markdown tables for people, JSON for anything that wants the numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path


def _num(x, fmt: str = ".2f", suffix: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:{fmt}}{suffix}"


def _size(mb: float) -> str:
    return f"{mb:g} MB"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _time_cell(row: dict) -> str:
    if row["status"] == "ok":
        return _num(row["seconds"])
    if row["status"] == "capped":
        return f"> {row['cap_s']:g}"
    return row["status"]


def training_md(rows: list[dict], runs: int) -> list[str]:
    out = [f"### Training (median of {runs} run{'s' * (runs > 1)}, 2 cores)", ""]
    body = []
    for r in rows:
        body.append(
            [
                _size(r["corpus_mb"]),
                f"{r['vocab_size']:,}",
                r["label"],
                _time_cell(r),
                _num(r.get("time_x_hf"), ".2f", "×"),
                _num(r.get("cpu_s")),
                _num(r.get("peak_rss_mb"), ".0f"),
                _num(r.get("tree_peak_mb"), ".0f"),
                _num(r.get("memory_x_corpus"), ".1f", "×"),
                r.get("agreement", "") or r.get("note", ""),
            ]
        )
    out += _table(
        [
            "corpus",
            "vocab",
            "trainer",
            "time s",
            "time vs HF",
            "CPU s",
            "peak RSS MB",
            "tree peak MB",
            "memory / corpus",
            "merges vs reference / note",
        ],
        body,
    )
    out += [
        "",
        "Time: wall-clock seconds of the training call alone (median). CPU s: user + system "
        "seconds of the whole subprocess and its workers, interpreter start included: less "
        "sensitive to a busy machine than wall time. Runs of the contenders are interleaved. "
        "Peak RSS: the largest single process (the job's own `VmHWM`, or `ru_maxrss` of a "
        "worker it forked). Tree peak: the summed proportional set size (PSS) of the process "
        "and the workers it forks, sampled every 50 ms. Memory / corpus: the larger of the two,"
        " minus the process's RSS before training (interpreter and imports), divided by the "
        "corpus size.",
    ]
    return out


def encoding_md(section: dict) -> list[str]:
    out = [
        f"### Encoding ({section['text_bytes'] / 1e6:.3g} MB of validation text, one thread, "
        f"vocab {section['vocab_size']:,} trained by the reference)",
        "",
    ]
    if section.get("error"):
        return out + [section["error"]]
    body = []
    for r in section["rows"]:
        if r["status"] != "ok":
            body.append([r["label"], r["status"], "—", "—", r["note"]])
            continue
        body.append(
            [
                r["label"],
                _num(r["mb_per_s"]),
                _num(r.get("time_x_tiktoken"), ".2f", "×"),
                "yes" if r["ids_agree"] else "**NO**",
                f"{r['n_ids']:,} ids",
            ]
        )
    out += _table(["encoder", "MB/s", "time vs tiktoken", "ids agree", "note"], body)
    for m in section["mismatches"]:
        out += ["", f"**MISMATCH**: {m}"]
    return out


def grading_md(section: dict) -> list[str]:
    out = ["### Grading", ""]
    if section.get("note"):
        return out + [f"Not measured: {section['note']}."]
    rows = []
    if "seconds" in section:
        rows.append(
            [
                "full grade of the reference (`python -m grader grade solution`)",
                f"{section['seconds']:.1f} s (median of {len(section['all_seconds'])}), "
                f"score {section['score']}",
            ]
        )
    if "split" in section:
        rows += _split_rows("the full grade", section["split"])
    part2 = section.get("part2", {})
    if "seconds" in part2:
        rows.append(
            [f"a Part-{part2['part']}-only grade (`{part2['command']}`)", f"{part2['seconds']:.1f} s"]
        )
        rows += _split_rows(f"the Part-{part2['part']} grade", part2.get("split", {}))
    starter = section.get("starter", {})
    if "seconds" in starter:
        rows.append(
            [
                f"the untouched starter (`{starter['command']}`)",
                f"{starter['seconds']:.1f} s, score {starter['score']}",
            ]
        )
    if section.get("error"):
        rows.append(["error", section["error"]])
    rows.append(_farm_row(section.get("farm", {}), "batch of {students}", "submissions"))
    return out + _table(["what", "measured"], rows)


def _farm_row(farm: dict, what: str, unit: str) -> list[str]:
    """A class graded by the farm: how many, how long, how many an hour (or why not measured)."""
    if "per_hour" not in farm:
        return ["batch grading", farm.get("note", "not measured")]
    return [
        what.format(students=farm["students"]) + f" at `--jobs {farm['jobs']}`",
        f"{farm['seconds']:.1f} s → {farm['per_hour']:.0f} {unit}/hour",
    ]


def real_repo_md(section: dict) -> list[str]:
    out = ["### A real repository's layout (CS336, torch, a pool)", ""]
    if section.get("note"):
        return out + [f"Not measured: {section['note']}."]
    rows = [
        [
            "`grade --contract cs336 REPO --python PY` (its package imports torch; its trainer runs a pool)",
            f"{section['seconds']:.1f} s (median of {len(section['all_seconds'])}), score {section['score']}",
        ]
    ]
    rows.append(_farm_row(section.get("farm", {}), "a class of {students} such repositories", "repositories"))
    return out + _table(["what", "measured"], rows)


def _split_rows(what: str, split: dict) -> list[list[str]]:
    """Where a grade's seconds go: the grader's start-up, each part's tests, the slowest tests."""
    if "tests_s" not in split:
        return []
    parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in split.get("by_part", {}).items())
    slowest = ", ".join(
        f"{row['test'].split(' ')[0]} {row['seconds']:.1f} s" for row in split.get("slowest", [])
    )
    rows = [
        [f"· {what}: start-up (pytest, collection, the sandbox check)", f"{split['startup_s']:.1f} s"],
        [f"· {what}: the tests ({parts})", f"{split['tests_s']:.1f} s"],
    ]
    if slowest:
        rows.append([f"· {what}: the slowest tests", slowest])
    return rows


def scaling_md(section: dict) -> list[str]:
    out = ["### Scaling (training seconds, same runs as above, 2 cores)", ""]
    for title, key, rows in (
        ("vs corpus size", "corpus_mb", section["by_size"]),
        ("vs number of merges", "merges", section["by_merges"]),
    ):
        body = [
            [
                (_size(r[key]) if key == "corpus_mb" else f"{r[key]:,}"),
                _num(r.get("reference_s")),
                _num(r.get("hf_s")),
                _num(r.get("ratio"), ".2f", "×"),
            ]
            for r in rows
        ]
        fixed = (
            f"vocab {section['vocab']:,}" if key == "corpus_mb" else f"{_size(section['merges_mb'])} corpus"
        )
        out += [f"{title} ({fixed}):", ""]
        out += _table(
            ["corpus" if key == "corpus_mb" else "merges", "reference s", "HF s", "reference / HF"], body
        ) + [""]
    return out


def targets_md(targets: list[dict]) -> list[str]:
    body = [
        [t["target"], t["measured"], {True: "met", False: "**missed**", None: "not measured"}[t["met"]]]
        for t in targets
    ]
    return ["### Targets", ""] + _table(["target", "measured", ""], body)


def render(report: dict) -> str:
    meta = report["meta"]
    lines = [
        f"## bpe-kit bench — {meta['date']}",
        "",
        f"`{meta['command']}` on {meta['machine']}; load average {meta['load_before']} before, "
        f"{meta['load_after']} after.",
        "",
    ]
    lines += [f"> {n}" for n in report["notes"]] + ([""] if report["notes"] else [])
    if "targets" in report:
        lines += targets_md(report["targets"]) + [""]
    if "training" in report:
        lines += training_md(report["training"], meta["runs"]) + [""]
    if "encoding" in report:
        lines += encoding_md(report["encoding"]) + [""]
    if "grading" in report:
        lines += grading_md(report["grading"]) + [""]
    if "real_repo" in report:
        lines += real_repo_md(report["real_repo"]) + [""]
    if "limits" in report:
        from bench.limits import limits_md

        lines += limits_md(report["limits"]) + [""]
    if "scaling" in report:
        lines += scaling_md(report["scaling"])
    return "\n".join(lines).rstrip() + "\n"


def write(report: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    md, js = out_dir / "bench.md", out_dir / "bench.json"
    md.write_text(render(report), encoding="utf-8")
    public = json.loads(json.dumps(report, default=str))
    for row in public.get("training", []):
        for k in [k for k in row if k.startswith("_")]:
            del row[k]
    js.write_text(json.dumps(public, indent=2) + "\n", encoding="utf-8")
    return md, js
