"""The kill matrix: which rubric test each catalogue submission fails, in a full grading run.

    python tests/submissions/kill_matrix.py [--jobs 2] [--only NAME ...]   # rewrites kill_matrix.md

grades every non-hostile row on the whole graded suite (jailed, like the tests do) and writes
`kill_matrix.md`: one row per submission, one column per rubric number, `x` where it loses the
points. The kit's tests compare their own gradings with this file, and this file with
catalogue.toml, so an expectation, a grade and the record of both can never drift apart silently.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import catalogue  # beside this script: on the path when it runs as a script or under pytest
import jail

HERE = Path(__file__).resolve().parent

MATRIX = HERE / "kill_matrix.md"
HEADER = (
    "# Kill matrix\n\nWritten by `python tests/submissions/kill_matrix.py` from full gradings "
    "(`python -m grader grade`, every rubric test).\n`x` = the submission loses that test's "
    "points, `.` = it keeps them. Checked against catalogue.toml (test_catalogue_build.py) and fresh "
    "gradings (test_catalogue_matrix.py).\n\n"
)


def rubric_entries():
    from grader import rubric
    from grader.paths import DEFAULT_RUBRIC

    return rubric.load(DEFAULT_RUBRIC)


def failed_numbers(results: dict) -> dict[str, bool]:
    """rubric number -> True if that test lost points."""
    return {t["number"]: t["score"] < t["max_score"] for t in results["tests"]}


def render(rows: dict[str, dict[str, bool]], numbers: list[str]) -> str:
    lines = ["| submission | " + " | ".join(numbers) + " |", "|---|" + "---|" * len(numbers)]
    for name in rows:
        cells = ["x" if rows[name].get(n) else ("." if n in rows[name] else "?") for n in numbers]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return HEADER + "\n".join(lines) + "\n"


def parse(text: str) -> tuple[list[str], dict[str, dict[str, bool]]]:
    """Back from the Markdown table: (rubric numbers, {name: {number: failed}})."""
    rows: dict[str, dict[str, bool]] = {}
    numbers: list[str] = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "submission":
            numbers = cells[1:]
            continue
        rows[cells[0]] = {n: c == "x" for n, c in zip(numbers, cells[1:]) if c in ("x", ".")}
    return numbers, rows


def grade_full(entry: catalogue.Entry, work: Path) -> dict:
    sub = catalogue.materialize(entry, work / entry.name / "submission")
    done = jail.grade_in_jail(sub, work / entry.name / "out", linger=entry.linger)
    if done.returncode != 0 or done.results is None:
        raise SystemExit(f"{entry.name}: grading failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="regrade these rows, keep the others")
    args = ap.parse_args(argv)
    entries = [e for e in catalogue.load() if e.kind != "hostile"]
    if args.only:
        entries = [e for e in entries if e.name in args.only]
    numbers = [e.number for e in rubric_entries()]
    old_rows = parse(MATRIX.read_text())[1] if MATRIX.exists() else {}
    with tempfile.TemporaryDirectory(prefix="kill-matrix-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        futures = {e.name: pool.submit(grade_full, e, Path(tmp)) for e in entries}
        fresh, broken = {}, []
        for name, fut in futures.items():
            try:
                fresh[name] = failed_numbers(fut.result())
            except (Exception, SystemExit) as e:  # one broken row must not lose the others
                broken.append(name)
                print(f"{name}: NOT GRADED: {e}", file=sys.stderr, flush=True)
                continue
            print(name, " ".join(n for n, bad in fresh[name].items() if bad) or "-", flush=True)
    order = [e.name for e in catalogue.load() if e.kind != "hostile"]
    rows = {n: fresh.get(n, old_rows.get(n, {})) for n in order if n in fresh or n in old_rows}
    MATRIX.write_text(render(rows, numbers))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
