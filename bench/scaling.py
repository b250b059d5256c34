"""How training time grows: with the corpus (fixed vocab) and with the number of merges (fixed
corpus). The reference should grow about linearly in both; HF is the yardstick."""

from __future__ import annotations

from bench.training import TrainingBench


def _pair(bench: TrainingBench, mb: float, vocab: int) -> dict:
    ref, hf = bench.measure_group(["reference", "hf"], mb, vocab)
    row = {"corpus_mb": mb, "vocab": vocab, "merges": vocab - 256 - len(bench.specials)}
    if ref.get("status") == "ok":
        row["reference_s"] = ref["seconds"]
    if hf.get("status") == "ok":
        row["hf_s"] = hf["seconds"]
        if "reference_s" in row:
            row["ratio"] = row["reference_s"] / row["hf_s"]
    return row


def run_scaling(
    bench: TrainingBench, *, sizes: list[float], vocab: int, merges_mb: float, vocabs: list[int]
) -> dict:
    return {
        "vocab": vocab,
        "merges_mb": merges_mb,
        "by_size": [_pair(bench, mb, vocab) for mb in sizes],
        "by_merges": [_pair(bench, merges_mb, v) for v in vocabs],
    }
