"""Stability: the same catalogue row, graded alone, beside a busy neighbour and as an ordinary user,
must get the same verdict on every test.

    python tests/submissions/stability.py [--rows NAME ...] [--pool-rows] [--tests EXPR] [--runs ...]

Three runs of each row (jailed, like the kit's tests: tests/submissions/jail.py): "alone" (one
grading at a time, a farm at --jobs 1), "beside" (while a neighbour grading of a row whose Pool of
32 workers runs 16 threads each keeps its pool busy, a farm at --jobs 2: each grading has a process
budget of its own, grader/sandbox/box.py) and "user" (graded by an ordinary user, in user
namespaces). Every run must agree with catalogue.toml (a variant fails nothing) and with the
others. Prints one line per row and run (its score, and the tests whose verdict differs) and exits
1 when any verdict differs. `make stability` runs it on every row that is not hostile; the kit's
tests run `side_by_side` on the pool rows (tests/kit/submissions/test_catalogue_stability.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import catalogue  # beside this script: on the path when it runs as a script or under pytest
import jail

RUNS = ("alone", "beside", "user")
# The rows whose processes and threads the budget must admit, graded on every run of `make test`.
POOL_ROWS = ("procs_manager", "procs_pool_per_call", "procs_threads", "pool_fork")
NEIGHBOUR = "procs_threads"  # a Pool of 32 workers of 16 threads each


def verdicts(results: dict) -> dict[str, bool]:
    """rubric number -> whether the test kept its points."""
    return {t["number"]: t["score"] >= t["max_score"] for t in results["tests"]}


def expected(entry: catalogue.Entry, results: dict) -> dict[str, bool]:
    """What catalogue.toml says each graded test's verdict is."""
    from grader import rubric
    from grader.paths import DEFAULT_RUBRIC

    ids = {e.number: e.id for e in rubric.load(DEFAULT_RUBRIC)}
    return {t["number"]: not entry.must_fail(ids[t["number"]]) for t in results["tests"]}


def grade(entry: catalogue.Entry, work: Path, tests: str | None, user: str | None = None) -> dict:
    """One jailed grading of the row; its results.json."""
    sub = catalogue.materialize(entry, work / "submission")
    done = jail.grade_in_jail(sub, work / "out", tests=tests or entry.select or None, user=user)
    if done.returncode != 0 or done.results is None:
        raise RuntimeError(f"{entry.name}: grading failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.results


def side_by_side(names: list[str], work: Path, tests: str | None = None) -> dict[str, dict]:
    """Each row graded at the same moment as the others (one grading per row, all at once)."""
    with ThreadPoolExecutor(len(names)) as pool:
        futures = {n: pool.submit(grade, catalogue.by_name(n), work / f"{n}-side", tests) for n in names}
        return {n: f.result() for n, f in futures.items()}


def beside(entry: catalogue.Entry, work: Path, tests: str | None) -> dict:
    """The row graded while a neighbour grading keeps a pool of 32 busy, regraded until it ends."""
    done = threading.Event()

    def neighbour():
        k = 0
        while not done.is_set():
            k += 1
            grade(catalogue.by_name(NEIGHBOUR), work / f"neighbour-{k}", "test_part2")

    thread = threading.Thread(target=neighbour, daemon=True)
    thread.start()
    time.sleep(2.0)  # the neighbour's pool is up before the row starts
    try:
        return grade(entry, work / "row", tests)
    finally:
        done.set()
        thread.join()


def run_row(entry: catalogue.Entry, work: Path, runs: tuple[str, ...], tests: str | None) -> list[str]:
    """One line per run; the differing verdicts are marked DIFFERS."""
    lines, want = [], None
    for run in runs:
        started = time.monotonic()
        try:
            if run == "alone":
                results = grade(entry, work / "alone", tests)
            elif run == "beside":
                results = beside(entry, work / "beside", tests)
            else:
                sys.path.insert(0, str(catalogue.KIT_ROOT / "tests" / "kit"))
                from sandboxed import ordinary_user

                results = grade(entry, work / "user", tests, user=ordinary_user())
        except RuntimeError as e:
            lines.append(f"{entry.name:24} {run:7} NOT GRADED: {str(e).splitlines()[0]}")
            continue
        got = verdicts(results)
        want = want or expected(entry, results)
        differ = sorted(n for n in got if got[n] != want.get(n))
        status = "DIFFERS " + " ".join(differ) if differ else "same"
        lines.append(
            f"{entry.name:24} {run:7} {results['score']:6.2f} / {results['extra_data']['max_score']:g}"
            f"  {time.monotonic() - started:5.0f} s  {status}"
        )
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="*", default=None, help="these rows (default: every row not hostile)")
    ap.add_argument("--pool-rows", action="store_true", help="the rows of processes and threads only")
    ap.add_argument("--tests", default=None, help="only these tests of each row (a pytest -k expression)")
    ap.add_argument("--runs", nargs="*", default=list(RUNS), choices=RUNS)
    args = ap.parse_args(argv)
    entries = [e for e in catalogue.load() if e.kind != "hostile"]
    names = args.rows or (POOL_ROWS if args.pool_rows else None)
    if names:
        entries = [e for e in entries if e.name in names]
    bad = 0
    with tempfile.TemporaryDirectory(prefix="stability-") as tmp:
        for entry in entries:
            for line in run_row(entry, Path(tmp) / entry.name, tuple(args.runs), args.tests):
                print(line, flush=True)
                bad += "DIFFERS" in line or "NOT GRADED" in line
    print("stable" if not bad else f"{bad} run(s) differ", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
