"""`make bench`: measure the reference and the grader side by side with real tokenizers.

    python bench/run.py                 # everything, medians of 3 runs (several minutes)
    python bench/run.py --quick         # tiny sizes, one run: checks the harness, not the speed
    python bench/run.py --only encoding # one section (training|encoding|grading|limits|scaling)
    make bench BENCH_ARGS="--only grading --runs 5"

Prints a Markdown report and writes it, with the raw numbers as JSON, to bench/results/.
Contenders from the optional `bench` extra (tokenizers, tiktoken, bpeasy) are skipped with a
note when they are not installed. Timings on a busy machine are noisy: the report shows the load.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import contenders, published, report, targets, texts  # noqa: E402
from bench.encoding import run_encoding  # noqa: E402
from bench.grading import run_grading  # noqa: E402
from bench.limits import run_limits  # noqa: E402
from bench.real_repo import run_real_repo  # noqa: E402
from bench.scaling import run_scaling  # noqa: E402
from bench.training import TrainingBench  # noqa: E402

SECTIONS = ("training", "encoding", "grading", "real-repo", "limits", "scaling")

FULL = {
    "runs": 3,
    "sizes": [1, 5, 25],
    "vocabs": [1_000, 10_000],
    "naive_at": (1, 1_000),
    "naive_cap_s": 90,
    "encode_train_mb": 5,
    "encode_vocab": 10_000,
    "encode_text_mb": 5,
    "scaling_sizes": [1, 5, 10, 25, 50],
    "scaling_vocab": 10_000,
    "scaling_merges_mb": 5,
    "scaling_vocabs": [500, 1_000, 2_000, 5_000, 10_000, 20_000],
    "farm_students": 8,
    "real_students": 6,
    "jobs": 2,
    "timeout_s": 900,
}
QUICK = {
    "runs": 1,
    "sizes": [0.05],
    "vocabs": [300, 600],
    "naive_at": (0.05, 300),
    "naive_cap_s": 60,
    "encode_train_mb": 0.05,
    "encode_vocab": 600,
    "encode_text_mb": 0.03,
    "scaling_sizes": [0.02, 0.05],
    "scaling_vocab": 600,
    "scaling_merges_mb": 0.05,
    "scaling_vocabs": [300, 600],
    "farm_students": 2,
    "real_students": 2,
    "jobs": 2,
    "timeout_s": 300,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python bench/run.py", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes and one run (a smoke test)")
    ap.add_argument("--only", choices=SECTIONS, action="append", help="run only this section (repeatable)")
    ap.add_argument("--runs", type=int, help="runs per figure (default 3, or 1 with --quick)")
    ap.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "results",
        help="where bench.md and bench.json go (default bench/results)",
    )
    ap.add_argument(
        "--torch-python",
        help="an interpreter with torch, for the real-repository figure (default: this one)",
    )
    args = ap.parse_args(argv)
    if args.runs is not None and args.runs < 1:
        ap.error("--runs must be at least 1")
    return args


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("tokenizers", "tiktoken", "bpeasy", "regex"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _commit() -> str:
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True, capture_output=True, timeout=10
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.runs:
        cfg["runs"] = args.runs
    only = set(args.only or SECTIONS)
    texts.CACHE = args.out / "corpus"
    specials = texts.special_tokens()
    started = time.perf_counter()
    command = "python bench/run.py" + "".join(f" {shlex.quote(a)}" for a in (argv or sys.argv[1:]))
    load_before = _load()
    notes = []
    if os.getloadavg()[0] > 0.8 * (os.cpu_count() or 1) / 2:
        notes.append(
            f"The machine was busy when the bench started (load {load_before} on "
            f"{os.cpu_count()} cores): timings are noisy; re-run on a quiet machine."
        )
    for name in ("hf", "tiktoken", "bpeasy"):
        why = contenders.missing(name)
        if why:
            notes.append(f"{contenders.LABEL[name]} skipped: {why}.")
    result: dict = {"notes": notes}
    disagreements = 0
    bench = TrainingBench(cfg["runs"], specials, timeout_s=cfg["timeout_s"], naive_cap_s=cfg["naive_cap_s"])

    if "training" in only:
        rows = []
        for mb in cfg["sizes"]:
            for vocab in cfg["vocabs"]:
                who = [c for c in contenders.TRAINERS if c != "naive" or (mb, vocab) == cfg["naive_at"]]
                _progress(f"training {', '.join(who)}: {mb:g} MB, vocab {vocab}")
                rows += bench.measure_group(who, mb, vocab)
        result["training"] = [bench.compare(r) for r in rows]
        for other in (r for r in rows if r["contender"] in ("naive", "fast") and r.get("status") == "ok"):
            if bench.compare(other).get("agreement") != "identical merges":
                disagreements += 1
                notes.append(
                    f"TRAINERS DISAGREE: {other['label']} and the reference learned different merges "
                    f"({other['corpus_mb']:g} MB, vocab {other['vocab_size']}), so one of them breaks "
                    "the training contract."
                )
    if "encoding" in only:
        _progress("encoding")
        result["encoding"] = run_encoding(
            runs=cfg["runs"],
            train_mb=cfg["encode_train_mb"],
            vocab_size=cfg["encode_vocab"],
            text_mb=cfg["encode_text_mb"],
            specials=specials,
            timeout_s=cfg["timeout_s"],
        )
        for m in result["encoding"]["mismatches"]:
            disagreements += 1
            notes.append(f"ENCODERS DISAGREE: {m}")
            print(f"ENCODERS DISAGREE: {m}", file=sys.stderr)
    if "grading" in only:
        if args.quick and args.only is None:
            result["grading"] = {"note": "skipped with --quick (use --only grading)"}
        else:
            _progress("grading")
            result["grading"] = run_grading(
                runs=cfg["runs"],
                farm_students=cfg["farm_students"],
                jobs=cfg["jobs"],
                timeout_s=cfg["timeout_s"],
            )
    if "real-repo" in only:
        if args.quick and args.only is None:
            result["real_repo"] = {"note": "skipped with --quick (use --only real-repo)"}
        else:
            _progress("a CS336-layout repository that imports torch and runs a pool")
            result["real_repo"] = run_real_repo(
                runs=cfg["runs"],
                students=cfg["real_students"],
                jobs=cfg["jobs"],
                timeout_s=cfg["timeout_s"],
                python=args.torch_python,
            )
    if "limits" in only:
        if args.quick and args.only is None:
            result["limits"] = {"note": "skipped with --quick (use --only limits)"}
        else:
            _progress("per-test limits: slow rows, and an endless loop")
            result["limits"] = run_limits(timeout_s=cfg["timeout_s"])
    if "scaling" in only:
        _progress("scaling")
        result["scaling"] = run_scaling(
            bench,
            sizes=cfg["scaling_sizes"],
            vocab=cfg["scaling_vocab"],
            merges_mb=cfg["scaling_merges_mb"],
            vocabs=cfg["scaling_vocabs"],
        )
    if not args.quick:
        result["targets"] = targets.evaluate(result, big_mb=max(cfg["scaling_sizes"]))
    result["meta"] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        "load_before": load_before,
        "load_after": _load(),
        "runs": cfg["runs"],
        "quick": args.quick,
        "sections": sorted(only),
        "commit": _commit(),
        "versions": _versions(),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    md, js = report.write(result, args.out)
    if published.write_record(result):  # the figures README quotes (bench/published.py)
        published.update_readme()
        print(f"grading figures published: {published.RECORD.relative_to(ROOT)} and README.md")
    print(report.render(result))
    print(f"written to {md} and {js} in {result['meta']['elapsed_s']:.0f} s")
    if disagreements:
        print(
            f"bench: {disagreements} disagreement(s) between implementations (see the notes)", file=sys.stderr
        )
    return 1 if disagreements else 0


def _progress(what: str) -> None:
    print(f"[bench] {what} ...", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
