"""python -m grader.farm {grade,merge,report}: grade a class, combine shards, render the report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..api import isolation_level
from . import gradebook, records, report
from .batch import DEFAULT_BUDGET, MANIFEST, grade_all
from .merge import MergeError, merge
from .roster import RosterError, parse_shard
from .worker import DEFAULT_GRADE_FN


def output_records(out: Path) -> dict[str, dict]:
    """The records an output is responsible for (its manifest's students), by student id."""
    try:
        assigned = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["assigned"]
    except (OSError, ValueError, KeyError, TypeError):
        raise RosterError(f"{out}: not a farm output (no readable {MANIFEST})") from None
    recs = records.read_records(out)
    return {s: recs[s] for s in assigned if s in recs}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m grader.farm", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("grade", help="grade a directory of submissions (one folder or zip per student id)")
    g.add_argument("submissions", type=Path)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--jobs", type=int, default=1, help="students graded in parallel (default 1)")
    g.add_argument("--shard", default=None, help="K/N: grade only shard K of N of the sorted roster")
    g.add_argument("--force", action="store_true", help="regrade students that already have a result")
    g.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        help=f"wall-clock seconds per student (default {DEFAULT_BUDGET:g})",
    )
    g.add_argument("--grade-fn", default=DEFAULT_GRADE_FN, help=argparse.SUPPRESS)
    g.add_argument(
        "--tests",
        default=None,
        metavar="EXPR",
        help="grade only the graded tests matching this pytest -k expression (a quick pass)",
    )
    g.add_argument(
        "--contract",
        choices=("kit", "cs336"),
        default="kit",
        help="cs336: each submission is a CS336 assignment-1 repository (or a zip of one)",
    )
    g.add_argument(
        "--allow-weak-isolation",
        action="store_true",
        help="grade even without root: students' code then runs as you and can reach the kit",
    )
    g.add_argument(
        "--grade-kwargs", default="{}", help="extra keyword arguments for grader.api.grade, as JSON"
    )
    m = sub.add_parser("merge", help="combine shard outputs; reports missing and duplicate students")
    m.add_argument("inputs", type=Path, nargs="+")
    m.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report", help="(re)write OUT/gradebook.csv, grades.json and report.html")
    r.add_argument("out", type=Path)
    return ap


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.cmd == "grade":
            if args.jobs < 1:
                raise RosterError("--jobs must be at least 1")
            if not args.budget > 0:
                raise RosterError("--budget must be a positive number of seconds")
            level = isolation_level()
            if level == "process-group" and not args.allow_weak_isolation:
                raise RosterError(
                    "grading a class needs root (e.g. `sudo make class ...`): without it, "
                    "students' code runs as you and could change the kit or other students' "
                    "results. Pass --allow-weak-isolation to grade anyway."
                )
            shard = parse_shard(args.shard) if args.shard else None
            try:
                kwargs = json.loads(args.grade_kwargs)
                assert isinstance(kwargs, dict)
            except (ValueError, AssertionError):
                raise RosterError(f"--grade-kwargs {args.grade_kwargs!r}: expected a JSON object") from None
            if "timeout_total" in kwargs:
                raise RosterError("--grade-kwargs: set the time per student with --budget, not timeout_total")
            if args.tests:
                kwargs["tests"] = args.tests
            if args.contract != "kit":
                kwargs["contract"] = args.contract
            try:
                recs = grade_all(
                    args.submissions,
                    args.out,
                    jobs=args.jobs,
                    shard=shard,
                    force=args.force,
                    budget=args.budget,
                    grade_fn=args.grade_fn,
                    grade_kwargs=kwargs,
                )
            except KeyboardInterrupt:
                print(
                    f"interrupted: results graded so far are kept in {args.out}; rerun to continue",
                    file=sys.stderr,
                )
                return 130
            gradebook.write(args.out, recs)
            report.write(args.out, recs)
            print(f"wrote {args.out}/gradebook.csv, grades.json, report.html")
            return 0
        if args.cmd == "merge":
            rep = merge(args.inputs, args.out)
            recs = output_records(args.out)
            report.write(args.out, recs)
            for line in rep.lines():
                print(
                    line,
                    file=sys.stderr if line.startswith(("problem", "missing", "duplicate")) else sys.stdout,
                )
            print(f"wrote {args.out}/gradebook.csv, grades.json, report.html")
            return 0 if rep.complete else 1
        recs = output_records(args.out)
        gradebook.write(args.out, recs)
        print(f"wrote {report.write(args.out, recs)}")
        return 0
    except (RosterError, MergeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
