"""Encoding throughput on the validation text, and a check that every encoder gives the same ids.

The vocabulary is the one the reference trains on the kit's corpus; tiktoken and Hugging Face
`tokenizers` are built from those saved files (which also shows the files load in HF). Everyone
runs on one thread: the targets compare single-threaded speed.
"""

from __future__ import annotations

import tempfile
from array import array
from pathlib import Path

from bench import contenders, measure, texts

ONE_THREAD = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
CASES = [
    ("reference", False),
    ("reference", True),
    ("fast", False),
    ("fast", True),
    ("tiktoken", False),
    ("hf", False),
]


def run_encoding(
    *, runs: int, train_mb: float, vocab_size: int, text_mb: float, specials: list[str], timeout_s: float
) -> dict:
    text_path = texts.corpus_file(text_mb, texts.VALID_SEED)
    n_bytes = text_path.stat().st_size
    section = {
        "text_bytes": n_bytes,
        "train_mb": train_mb,
        "vocab_size": vocab_size,
        "rows": [],
        "mismatches": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-encode-") as tmp:
        work = Path(tmp)
        trained = measure.run_job(
            {
                "kind": "train",
                "contender": "reference",
                "input": str(texts.corpus_file(train_mb)),
                "vocab_size": vocab_size,
                "specials": specials,
                "save_dir": str(work),
            },
            timeout_s=timeout_s,
        )
        if not trained.ok:
            section["error"] = f"the reference could not train the vocabulary: {trained.error}"
            return section
        ids: dict[str, array] = {}
        for contender, warm in CASES:
            name = (
                f"{'fast paths' if contender == 'fast' else contender} ({'warm' if warm else 'empty'} cache)"
                if contender in ("reference", "fast")
                else contenders.LABEL[contender]
            )
            row = {"contender": contender, "label": name, "warm": warm, "status": "ok", "note": ""}
            why_not = contenders.missing(contender)
            if why_not:
                section["rows"].append({**row, "status": "skipped", "note": why_not})
                continue
            ids_path = work / f"{contender}-{int(warm)}.ids"
            job = {
                "kind": "encode",
                "contender": contender,
                "vocab": str(work / "vocab.json"),
                "merges": str(work / "merges.txt"),
                "specials": specials,
                "text": str(text_path),
                "runs": runs,
                "warm": warm,
                "ids_out": str(ids_path),
            }
            outcome = measure.run_job(job, timeout_s=timeout_s, env=ONE_THREAD)
            if not outcome.ok:
                section["rows"].append({**row, "status": "failed", "note": outcome.error})
                continue
            seconds = measure.median(outcome.result["seconds"])
            got = array("I")
            got.frombytes(ids_path.read_bytes())
            ids[name] = got
            section["rows"].append(
                {
                    **row,
                    "seconds": seconds,
                    "all_seconds": outcome.result["seconds"],
                    "mb_per_s": n_bytes / 1e6 / seconds,
                    "n_ids": len(got),
                    "peak_rss_mb": outcome.peak_rss_mb,
                    "runs": runs,
                }
            )
    base_name = next(iter(ids), None)
    for row in section["rows"]:
        if row["status"] != "ok":
            continue
        diff = first_difference(ids[base_name], ids[row["label"]])
        row["ids_agree"] = diff is None
        if diff is not None:
            section["mismatches"].append(f"{row['label']} differs from {base_name} {diff}")
    tik = next((r for r in section["rows"] if r["contender"] == "tiktoken" and r["status"] == "ok"), None)
    for row in section["rows"]:
        if tik and row["status"] == "ok":
            row["time_x_tiktoken"] = row["seconds"] / tik["seconds"]
    return section


def first_difference(a: array, b: array) -> str | None:
    if a == b:
        return None
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return (
        f"at id #{i} ({len(a)} vs {len(b)} ids): "
        f"{list(a[max(0, i - 3) : i + 3])} vs {list(b[max(0, i - 3) : i + 3])}"
    )
