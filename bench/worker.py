"""One measured job, run in its own interpreter by `bench.measure.run_job`.

Usage: python bench/worker.py JOB_JSON RESULT_PATH. The job is timed here, around the call alone
(interpreter start-up and imports excluded); the parent adds the kernel's peak-memory figures.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import contenders


def _status_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status ("VmRSS", "VmHWM"), in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def rss_mb() -> float:
    return _status_mb("VmRSS")


def peak_rss_mb() -> float:
    """The largest RSS of this process, or of a child it waited for (a trainer's pool workers).

    Not ``getrusage(RUSAGE_SELF)``, nor the parent's ``wait4``: Linux copies a parent's
    high-water mark into the child it forks and keeps it across exec, so those include the
    bench's own peak (tens of MB once it has generated a corpus). ``VmHWM`` belongs to this
    address space, which exec made new; children forked from here start from this process's mark.
    """
    return max(_status_mb("VmHWM"), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def train_job(job: dict) -> dict:
    baseline = rss_mb()
    start = time.perf_counter()
    vocab, merges = contenders.train(job["contender"], job["input"], job["vocab_size"], job["specials"])
    seconds = time.perf_counter() - start
    specials = {s.encode("utf-8") for s in job["specials"]}
    learned = sorted(tok.hex() for tok in vocab.values() if tok not in specials and len(tok) > 1)
    result = {"seconds": seconds, "baseline_rss_mb": baseline, "vocab_size": len(vocab), "learned": learned}
    if merges is not None:
        result["merges"] = [[a.hex(), b.hex()] for a, b in merges]
    if job.get("save_dir"):
        tok = contenders.reference().BPETokenizer(vocab, list(merges), job["specials"])
        out = Path(job["save_dir"])
        tok.save(str(out / "vocab.json"), str(out / "merges.txt"))
    return result


def encode_job(job: dict) -> dict:
    """`runs` timed encodes. Cold: a fresh encoder per run, so any cache starts empty. Warm: one
    encoder that has already encoded the whole text once."""
    with open(job["text"], encoding="utf-8", newline="") as f:
        text = f.read()

    def make():
        return contenders.encoder(job["contender"], job["vocab"], job["merges"], job["specials"])

    encode = make()
    if job["warm"]:
        encode(text)
    times, ids = [], []
    for _ in range(job["runs"]):
        if not job["warm"]:
            encode = make()
        start = time.perf_counter()
        ids = encode(text)
        times.append(time.perf_counter() - start)
    Path(job["ids_out"]).write_bytes(array("I", ids).tobytes())
    return {"seconds": times, "n_ids": len(ids), "n_bytes": len(text.encode("utf-8"))}


def main() -> None:
    job, result_path = json.loads(sys.argv[1]), Path(sys.argv[2])
    result = {"train": train_job, "encode": encode_job}[job["kind"]](job)
    result["peak_rss_mb"] = peak_rss_mb()
    result_path.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
