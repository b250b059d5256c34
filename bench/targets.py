"""The performance targets the kit promises, checked against one bench run.

Each target says what it compares and where the figure came from; "met" is None when the run did
not measure it (e.g. `--only encoding`, or a contender that is not installed).
"""

from __future__ import annotations


def _find(rows, **where):
    return next(
        (r for r in rows if all(r.get(k) == v for k, v in where.items()) and r.get("status") == "ok"), None
    )


def _train_vs_hf(report: dict, mb: float, vocab: int) -> dict:
    target = f"training ≤ 2× HF tokenizers, {mb:g} MB, vocab {vocab:,}, 2 cores"
    rows = report.get("training", [])
    scale = report.get("scaling", {}).get("by_size", [])
    ref, hf = (
        _find(rows, contender="reference", corpus_mb=mb, vocab_size=vocab),
        _find(rows, contender="hf", corpus_mb=mb, vocab_size=vocab),
    )
    if ref and hf:
        r = ref["seconds"] / hf["seconds"]
        return {
            "target": target,
            "met": r <= 2,
            "measured": f"{ref['seconds']:.2f} s vs {hf['seconds']:.2f} s = {r:.2f}×",
        }
    s = next((x for x in scale if x["corpus_mb"] == mb and x["vocab"] == vocab and "ratio" in x), None)
    if s:
        return {
            "target": target,
            "met": s["ratio"] <= 2,
            "measured": f"{s['reference_s']:.2f} s vs {s['hf_s']:.2f} s = {s['ratio']:.2f}×",
        }
    return {"target": target, "met": None, "measured": "—"}


def _memory(report: dict) -> dict:
    target = "training peak memory ≤ 5× corpus size (largest corpus measured, vocab 10K)"
    refs = [
        r for r in report.get("training", []) if r["contender"] == "reference" and r.get("status") == "ok"
    ]
    if not refs:
        return {"target": target, "met": None, "measured": "—"}
    big = max(refs, key=lambda r: (r["corpus_bytes"], r["vocab_size"]))
    return {
        "target": target,
        "met": big["memory_x_corpus"] <= 5,
        "measured": f"{big['corpus_mb']:g} MB: {big['memory_mb']:.0f} MB above the "
        f"interpreter = {big['memory_x_corpus']:.1f}× (largest process "
        f"{big['peak_rss_mb']:.0f} MB, tree {big['tree_peak_mb']:.0f} MB)",
    }


def _encoding(report: dict) -> list[dict]:
    rows = report.get("encoding", {}).get("rows", [])
    ref = _find(rows, contender="reference", warm=False)
    tik, hf = _find(rows, contender="tiktoken"), _find(rows, contender="hf")
    out = []
    t1 = "encoding ≤ 2× tiktoken's time, one thread, empty cache"
    if ref and tik:
        r = ref["seconds"] / tik["seconds"]
        out.append(
            {
                "target": t1,
                "met": r <= 2,
                "measured": f"{ref['mb_per_s']:.1f} vs {tik['mb_per_s']:.1f} MB/s = {r:.2f}× the time",
            }
        )
    else:
        out.append({"target": t1, "met": None, "measured": "—"})
    t2 = "encoding faster than HF tokenizers, one thread"
    if ref and hf:
        out.append(
            {
                "target": t2,
                "met": ref["mb_per_s"] > hf["mb_per_s"],
                "measured": f"{ref['mb_per_s']:.1f} vs {hf['mb_per_s']:.1f} MB/s",
            }
        )
    else:
        out.append({"target": t2, "met": None, "measured": "—"})
    return out


# The targets, on a quiet 2-core machine (the report shows the load it was measured at).
FULL_S, PART_S, STARTER_S, PER_HOUR = 3, 3, 3, 1500
REAL_S, REAL_PER_HOUR = 15, 300


def _grading(report: dict) -> list[dict]:
    g = report.get("grading", {})

    def seconds(target: str, section: dict, limit: float) -> dict:
        if "seconds" not in section:
            return {"target": target, "met": None, "measured": "—"}
        return {
            "target": target,
            "met": section["seconds"] <= limit,
            "measured": f"{section['seconds']:.1f} s",
        }

    farm = g.get("farm", {})
    t_farm = f"≥ {PER_HOUR} submissions/hour in batch (copies of the reference, 2 cores)"
    return [
        seconds(f"full grade of the reference ≤ {FULL_S} s", g, FULL_S),
        seconds(f"`make grade PART=2` on the reference ≤ {PART_S} s", g.get("part2", {}), PART_S),
        seconds(f"grade of the untouched starter ≤ {STARTER_S} s", g.get("starter", {}), STARTER_S),
        {
            "target": t_farm,
            "met": farm["per_hour"] >= PER_HOUR,
            "measured": f"{farm['per_hour']:.0f}/hour at --jobs {farm['jobs']}",
        }
        if "per_hour" in farm
        else {"target": t_farm, "met": None, "measured": "—"},
        *_real_repo(report),
    ]


def _real_repo(report: dict) -> list[dict]:
    real = report.get("real_repo", {})
    t_one = f"a CS336-layout repository (torch, a pool) graded in ≤ {REAL_S} s"
    t_farm = f"≥ {REAL_PER_HOUR} such repositories/hour in batch (2 cores)"
    farm = real.get("farm", {})
    return [
        {"target": t_one, "met": real["seconds"] <= REAL_S, "measured": f"{real['seconds']:.1f} s"}
        if "seconds" in real
        else {"target": t_one, "met": None, "measured": real.get("note", "—")},
        {
            "target": t_farm,
            "met": farm["per_hour"] >= REAL_PER_HOUR,
            "measured": f"{farm['per_hour']:.0f}/hour at --jobs {farm['jobs']}",
        }
        if "per_hour" in farm
        else {"target": t_farm, "met": None, "measured": "—"},
    ]


def evaluate(report: dict, *, big_mb: float) -> list[dict]:
    return [
        _train_vs_hf(report, 5, 10_000),
        _train_vs_hf(report, big_mb, 10_000),
        _memory(report),
        *_encoding(report),
        *_grading(report),
    ]
