"""`make mutation`: Cosmic Ray's mutants of the reference's graded modules, each graded by the grader.

    python tests/mutation/run.py [--modules training,tokenizer] [--sample 60] [--match TEXT] [--jobs 2] [--out DIR]

Cosmic Ray enumerates the mutants (`cosmic-ray init`, into OUT/session.sqlite), applies each to a
file, runs the test command with a timeout and restores the file (`mutate_and_test`); its results go
back into the session, which `cr-report OUT/session.sqlite` reads as well. This script adds what its
sequential local distributor lacks: JOBS mutants at once, each in its own scratch copy of solution/
(the committed tree is never mutated), and a test command per module (grade_mutant.py with the Parts
of MODULE_PARTS). A mutant is killed when a Part loses points or the grade outlasts TIMEOUT.

The score is killed / (graded - equivalent): equivalent.toml lists the survivors no input can kill.
"""

from __future__ import annotations

import argparse
import queue
import shlex
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs
from cosmic_ray.mutating import mutate_and_test
from cosmic_ray.work_db import use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_mutant import NO_GRADE, grade_part
from mutants import (
    KIT,
    MODULE_PARTS,
    SOLUTION,
    annotation_spans,
    choose,
    entry_key,
    enumerate_into,
    first_line,
    in_annotation,
    load_equivalents,
    module_of,
    module_path,
    name_all,
    stable_order,
)


def test_command(copy: Path, module: str) -> str:
    parts = " ".join(f"--part {p}" for p in MODULE_PARTS[module])
    script = KIT / "tests/mutation/grade_mutant.py"
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(copy))} {parts}"


def grade(item: WorkItem, pristine: Path, copies: queue.Queue, timeout: float) -> WorkResult:
    """Applies the mutant to a free scratch copy, grades it, and gives the copy back restored."""
    copy = copies.get()
    try:
        spec = item.mutations[0]
        moved = attrs.evolve(spec, module_path=copy / Path(spec.module_path).relative_to(pristine))
        result = mutate_and_test([moved], test_command(copy, module_of(item)), timeout)
    finally:
        copies.put(copy)
    if result.output and NO_GRADE in result.output:
        result = attrs.evolve(result, test_outcome=TestOutcome.INCOMPETENT)
    return result


def baseline_holds(modules: list[str], copies: queue.Queue, jobs: int) -> bool:
    """The unmutated reference keeps every Part's full score: else every mutant would count as killed."""
    parts = sorted({p for m in modules for p in MODULE_PARTS[m]})
    copy = copies.get()
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            graded = dict(zip(parts, pool.map(lambda p: grade_part(copy, p), parts)))
    finally:
        copies.put(copy)
    lost = {p: g for p, g in graded.items() if g is None or g[0] < g[1]}
    for part, got in lost.items():
        print(
            f"mutation: the unmutated reference loses points in Part {part} ({got}): no mutant can be judged"
        )
    if not lost:
        print(f"mutation: the unmutated reference keeps full marks in Part {', '.join(parts)}", flush=True)
    return not lost


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """The options, and the modules they name (an unknown one ends the run with a usage error)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modules", default=",".join(MODULE_PARTS), help="comma-separated, of " + ", ".join(MODULE_PARTS)
    )
    parser.add_argument(
        "--sample", type=int, default=None, help="grade this many mutants, chosen with a fixed seed"
    )
    parser.add_argument(
        "--match",
        action="append",
        default=[],
        help="grade only the mutants whose printed name holds this text (repeatable; before --sample)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds per mutant (the grader's budgets end first)"
    )
    parser.add_argument("--out", type=Path, default=KIT / "build/mutation")
    args = parser.parse_args(argv)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()]
    unknown = [m for m in modules if m not in MODULE_PARTS]
    if unknown or not modules:
        parser.error(
            f"--modules: unknown {', '.join(unknown) or '(none given)'}; known: {', '.join(MODULE_PARTS)}"
        )
    return args, modules


def main(argv: list[str] | None = None) -> int:
    args, modules = parse_args(argv)
    shutil.rmtree(args.out, ignore_errors=True)
    pristine = args.out / "solution"
    shutil.copytree(SOLUTION, pristine, ignore=shutil.ignore_patterns("__pycache__"))
    copies: queue.Queue = queue.Queue()
    for n in range(args.jobs):
        copy = args.out / f"job-{n}"
        shutil.copytree(pristine, copy)
        copies.put(copy)
    sources = {m: module_path(pristine, m).read_text(encoding="utf-8") for m in modules}
    spans = {m: annotation_spans(s) for m, s in sources.items()}

    with use_db(args.out / "session.sqlite") as db:
        enumerate_into(db, pristine, modules)
        items = sorted(db.work_items, key=stable_order)
        typed = [w for w in items if in_annotation(w, spans[module_of(w)])]
        candidates = [w for w in items if w not in typed]
        if args.match:
            every = name_all(items, sources)
            candidates = [w for w in candidates if any(t in every[w.job_id].describe() for t in args.match)]
        chosen = choose(candidates, args.sample)
        names = name_all(items, sources, {first_line(w, sources) for w in chosen})
        skipped = {w.job_id for w in items} - {w.job_id for w in chosen}
        db.set_multiple_results(skipped, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
        print(
            f"mutation: {len(items)} mutants in {', '.join(modules)}; {len(typed)} in type annotations left out; "
            f"grading {len(chosen)} with {args.jobs} jobs",
            flush=True,
        )
        if not baseline_holds(modules, copies, args.jobs):
            return 2
        start = time.monotonic()
        outcomes: dict[str, WorkResult] = {}
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {w.job_id: pool.submit(grade, w, pristine, copies, args.timeout) for w in chosen}
            for done, w in enumerate(chosen, 1):
                result = futures[w.job_id].result()
                db.set_result(w.job_id, result)
                outcomes[w.job_id] = result
                verdict = result.test_outcome.value if result.test_outcome else result.worker_outcome.value
                print(
                    f"[{done}/{len(chosen)}] {verdict:<11} {names[w.job_id].describe()}",
                    flush=True,
                )
        elapsed = time.monotonic() - start

    equivalent = {entry_key(e) for e in load_equivalents()}
    survivors, listed, killed_listed, incompetent = [], [], [], []
    killed = 0
    for w in chosen:
        result, mutant = outcomes[w.job_id], names[w.job_id]
        if result.test_outcome == TestOutcome.INCOMPETENT or result.worker_outcome != WorkerOutcome.NORMAL:
            incompetent.append(mutant)
        elif result.test_outcome == TestOutcome.SURVIVED:
            (listed if mutant.key in equivalent else survivors).append(mutant)
        else:
            killed += 1
            if mutant.key in equivalent:
                killed_listed.append(mutant)
    counted = len(chosen) - len(incompetent) - len(listed)
    print()
    print(f"mutation score: {killed} / {counted} killed ({len(chosen)} graded, {len(listed)} equivalent)")
    print(
        f"time: {elapsed:.0f} s wall, {elapsed * min(args.jobs, len(chosen)) / max(len(chosen), 1):.1f} s per mutant per job"
    )
    for title, group in (
        ("survivors (kill them with an input, or list them in tests/mutation/equivalent.toml)", survivors),
        ("listed as equivalent in equivalent.toml but killed: remove them", killed_listed),
        ("not graded (the grader wrote no results, or the mutation failed)", incompetent),
    ):
        if group:
            print(f"\n{title}:")
            for mutant in group:
                print(f"  {mutant.describe()}")
    print(f"\nsession: {args.out / 'session.sqlite'} (cr-report reads it)")
    return 1 if survivors or killed_listed else 0


if __name__ == "__main__":
    sys.exit(main())
