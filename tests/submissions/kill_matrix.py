"""The kill matrix: which rubric test each catalogue submission fails, in a full grading run.

    python tests/submissions/kill_matrix.py [--jobs 2] [--only NAME ...]   # rewrites kill_matrix.md

grades every non-hostile row on the whole graded suite (jailed, like the tests do) and writes
`kill_matrix.md`: one row per submission, one column per rubric number, `x` where it loses the
points, `~` where it fails but keeps them (the same cause as an earlier test, past the cap of what
one fault costs: grader/charges.py), and the points it loses in all. The kit's tests compare their
own gradings with this file, and this file with catalogue.toml (the cap included), so an
expectation, a grade and the record of both can never drift apart silently.
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
    "points, `.` = it keeps them, `~` = it fails, but keeps them: the same cause as an earlier test, "
    "past the cap of what one fault costs (grader/charges.py). `lost` = the points it loses in all. "
    "Checked against catalogue.toml (test_catalogue_build.py) and fresh "
    "gradings (test_catalogue_matrix.py).\n\n"
)
LOST = "lost"
NOT_CHARGED = "~"


def rubric_entries():
    from grader import rubric
    from grader.paths import DEFAULT_RUBRIC

    return rubric.load(DEFAULT_RUBRIC)


def cells_of(results: dict) -> dict[str, str]:
    """rubric number -> `x` (lost its points), `~` (failed, not charged) or `.`."""
    cells = {}
    for t in results["tests"]:
        charged = t["score"] < t["max_score"]
        same = t.get("extra_data", {}).get("charged") is False
        cells[t["number"]] = "x" if charged else (NOT_CHARGED if same else ".")
    return cells


def render(rows: dict[str, dict[str, str]], numbers: list[str], points: dict[str, float]) -> str:
    """The table; `lost` is the sum of the points of a row's `x` cells (each test is all or nothing)."""
    lines = [
        "| submission | " + " | ".join(numbers) + f" | {LOST} |",
        "|---|" + "---|" * (len(numbers) + 1),
    ]
    for name in rows:
        cells = [rows[name].get(n, "?") for n in numbers]
        lost = sum(points[n] for n in numbers if rows[name].get(n) == "x")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {lost:g} |")
    return HEADER + "\n".join(lines) + "\n"


def parse_cells(text: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """Back from the Markdown table: (rubric numbers, {name: {number or LOST: cell}})."""
    rows: dict[str, dict[str, str]] = {}
    numbers: list[str] = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "submission":
            numbers = [c for c in cells[1:] if c != LOST]
            heads = cells[1:]
            continue
        rows[cells[0]] = dict(zip(heads, cells[1:]))
    return numbers, rows


def parse(text: str) -> tuple[list[str], dict[str, dict[str, bool]]]:
    """(rubric numbers, {name: {number: lost its points}})."""
    numbers, rows = parse_cells(text)
    return numbers, {
        name: {n: c == "x" for n, c in cells.items() if n != LOST and c in ("x", ".", NOT_CHARGED)}
        for name, cells in rows.items()
    }


def points_lost(text: str) -> dict[str, float]:
    """{name: the points the row loses in all}."""
    return {name: float(cells[LOST]) for name, cells in parse_cells(text)[1].items() if LOST in cells}


def grade_full(entry: catalogue.Entry, work: Path, tests: str | None = None) -> dict:
    sub = catalogue.materialize(entry, work / entry.name / "submission")
    done = jail.grade_in_jail(sub, work / entry.name / "out", tests=tests, linger=entry.linger)
    if done.returncode != 0 or done.results is None:
        raise SystemExit(f"{entry.name}: grading failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="regrade these rows, keep the others")
    ap.add_argument(
        "--tests",
        default=None,
        help="regrade only these tests of each row (a pytest -k expression), keep its other cells "
        "(after a change that cannot move the others; a row without them keeps `?`)",
    )
    args = ap.parse_args(argv)
    entries = [e for e in catalogue.load() if e.kind != "hostile"]
    if args.only:
        entries = [e for e in entries if e.name in args.only]
    rubric = rubric_entries()
    numbers, points = [e.number for e in rubric], {e.number: e.points for e in rubric}
    rows = parse_cells(MATRIX.read_text())[1] if MATRIX.exists() else {}
    order = [e.name for e in catalogue.load() if e.kind != "hostile"]
    broken = []
    with tempfile.TemporaryDirectory(prefix="kill-matrix-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        futures = {e.name: pool.submit(grade_full, e, Path(tmp), args.tests) for e in entries}
        for name, fut in futures.items():
            try:
                fresh = cells_of(fut.result())
            except (Exception, SystemExit) as e:  # one broken row must not lose the others
                broken.append(name)
                print(f"{name}: NOT GRADED: {e}", file=sys.stderr, flush=True)
                continue
            kept = {n: c for n, c in rows.get(name, {}).items() if n in numbers} if args.tests else {}
            rows[name] = {**kept, **fresh}
            lost = " ".join(n for n in numbers if rows[name].get(n) == "x") or "-"
            print(name, lost, flush=True)
            # Written after each row: a run stopped early keeps what it graded.
            MATRIX.write_text(render({n: rows[n] for n in order if n in rows}, numbers, points))
    MATRIX.write_text(render({n: rows[n] for n in order if n in rows}, numbers, points))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
