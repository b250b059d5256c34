"""Training side by side: the reference, Hugging Face's BpeTrainer, bpeasy, and a naive trainer.

Each (contender, corpus size, vocab size) is measured once per bench run and remembered, so the
scaling series can reuse the rows of the main table instead of training the same thing twice.
"""

from __future__ import annotations

from bench import contenders, measure, texts

# Two cores is the machine the targets speak of; rayon would otherwise use every core it sees.
TRAIN_ENV = {"RAYON_NUM_THREADS": "2", "TOKENIZERS_PARALLELISM": "true"}


class TrainingBench:
    def __init__(self, runs: int, specials: list[str], *, timeout_s: float, naive_cap_s: float):
        self.runs, self.specials = runs, specials
        self.timeout_s, self.naive_cap_s = timeout_s, naive_cap_s
        self._rows: dict[tuple[str, float, int], dict] = {}

    def measure(self, contender: str, megabytes: float, vocab_size: int) -> dict:
        return self.measure_group([contender], megabytes, vocab_size)[0]

    def measure_group(self, who: list[str], megabytes: float, vocab_size: int) -> list[dict]:
        """Rows for `who` at one size. Runs are interleaved (A, B, A, B, ...) so that on a shared
        machine every contender sees the same background load; rows measured before are reused."""
        todo = [c for c in who if (c, megabytes, vocab_size) not in self._rows]
        path = texts.corpus_file(megabytes)
        outcomes: dict[str, list[measure.Outcome]] = {c: [] for c in todo}
        for c in list(todo):
            if contenders.missing(c):
                self._rows[(c, megabytes, vocab_size)] = self._row(c, megabytes, vocab_size, [])
                todo.remove(c)
        for _ in range(self.runs):
            for c in todo:
                if outcomes[c] and not outcomes[c][-1].ok:
                    continue  # failed or capped: once is enough
                cap = self.naive_cap_s if c == "naive" else self.timeout_s
                job = {
                    "kind": "train",
                    "contender": c,
                    "input": str(path),
                    "vocab_size": vocab_size,
                    "specials": self.specials,
                }
                outcomes[c].append(measure.run_job(job, timeout_s=cap, env=TRAIN_ENV))
        for c in todo:
            self._rows[(c, megabytes, vocab_size)] = self._row(c, megabytes, vocab_size, outcomes[c])
        return [self._rows[(c, megabytes, vocab_size)] for c in who]

    def _row(
        self, contender: str, megabytes: float, vocab_size: int, outcomes: list[measure.Outcome]
    ) -> dict:
        path = texts.corpus_file(megabytes)
        row = {
            "contender": contender,
            "label": contenders.LABEL[contender],
            "corpus_mb": megabytes,
            "corpus_bytes": path.stat().st_size,
            "vocab_size": vocab_size,
            "status": "ok",
            "note": "",
        }
        why_not = contenders.missing(contender)
        if why_not:
            return {**row, "status": "skipped", "note": why_not}
        good = [o for o in outcomes if o.ok]
        if not good:
            last = outcomes[-1]
            cap = self.naive_cap_s if contender == "naive" else self.timeout_s
            status = "capped" if last.timed_out else "failed"
            return {
                **row,
                "status": status,
                "note": last.error,
                "cap_s": cap,
                "peak_rss_mb": last.peak_rss_mb,
                "runs": 0,
            }
        result = good[-1].result
        seconds = [o.result["seconds"] for o in good]
        return {
            **row,
            "runs": len(good),
            "seconds": measure.median(seconds),
            "all_seconds": seconds,
            "cpu_s": measure.median([o.cpu_s for o in good]),
            "peak_rss_mb": measure.median([o.peak_rss_mb for o in good]),
            "tree_peak_mb": measure.median([o.tree_peak_mb for o in good]),
            "baseline_rss_mb": measure.median([o.result["baseline_rss_mb"] for o in good]),
            "vocab_out": result["vocab_size"],
            "_learned": result["learned"],
            "_merges": result.get("merges"),
        }

    def compare(self, row: dict) -> dict:
        """How `row` relates to the reference and to HF at the same size: time and memory ratios,
        and whether it learned the same merges."""
        if row.get("status") != "ok":
            return row
        ref = self._rows[("reference", row["corpus_mb"], row["vocab_size"])]
        hf = self._rows.get(("hf", row["corpus_mb"], row["vocab_size"]))
        out = dict(row)
        used = max(row["peak_rss_mb"], row["tree_peak_mb"]) - row["baseline_rss_mb"]
        out["memory_mb"] = used
        out["memory_x_corpus"] = used * 2**20 / row["corpus_bytes"]
        if hf and hf.get("status") == "ok":
            out["time_x_hf"] = row["seconds"] / hf["seconds"]
            out["memory_x_hf"] = row["peak_rss_mb"] / hf["peak_rss_mb"]
        if ref.get("status") == "ok" and row["contender"] != "reference":
            out["agreement"] = agreement(row, ref)
        return out


def agreement(row: dict, ref: dict) -> str:
    """'identical merges', or where the merge lists first part and how many learned tokens are
    shared (trainers differ in how they break ties between equally frequent pairs)."""
    mine, theirs = row.get("_merges"), ref.get("_merges")
    if mine is not None and theirs is not None and mine == theirs:
        return "identical merges"
    shared = len(set(row["_learned"]) & set(ref["_learned"]))
    text = f"{100 * shared / max(1, len(ref['_learned'])):.1f}% tokens shared"
    if mine is not None and theirs is not None:
        first = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        text = f"merges equal up to #{first}; " + text
    return text
