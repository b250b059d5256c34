"""`python -m grader grade SUBMISSION [--out DIR] [--contract kit|cs336] [--python PATH] [--tests PATTERN]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import api, report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The bpe-kit autograder.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade one submission (a folder holding bpe/, or a zip of one)")
    g.add_argument("submission", type=Path)
    g.add_argument("--out", type=Path, default=Path("results"), help="where results.json and junit.xml go")
    g.add_argument(
        "--inprocess",
        action="store_true",
        help="import the submission into the grader (debugging only; writes no grade)",
    )
    g.add_argument(
        "--contract",
        choices=("kit", "cs336"),
        default="kit",
        help="kit: a bpe/ package (default); cs336: a Stanford CS336 assignment-1 repository or zip",
    )
    g.add_argument(
        "--python",
        default=None,
        metavar="PATH",
        help="run the sandboxed worker under this interpreter (cs336 default: the repo's .venv/bin/python)",
    )
    g.add_argument("--tests", metavar="PATTERN", help="only tests matching this pytest -k expression")
    g.add_argument("--tests-dir", type=Path, default=None, help="graded tests folder (default tests/graded)")
    g.add_argument("--rubric", type=Path, default=None, help="rubric file (default grader/rubric.toml)")
    g.add_argument("--timeout-total", type=float, default=None, help="give up after this many seconds")
    g.add_argument(
        "--error-results",
        action="store_true",
        help="if grading cannot run, still write OUT/results.json saying why (Gradescope)",
    )
    g.add_argument(
        "--isolation",
        choices=("auto", "uid", "process-group"),
        default="auto",
        help="isolate workers less than the best available (to test the fallbacks)",
    )
    return parser


def grade(args) -> int:
    try:
        if not args.inprocess:
            args.out.mkdir(parents=True, exist_ok=True)
        grading = api.run(
            args.submission,
            tests=args.tests,
            tests_dir=args.tests_dir,
            rubric_path=args.rubric,
            inprocess=args.inprocess,
            timeout_total=args.timeout_total,
            hide=(args.out.resolve(),),
            isolation=args.isolation,
            contract=args.contract,
            python=args.python,
        )
        if args.inprocess:
            note = "In-process run, for debugging: no grade was written (grade without --inprocess)."
        else:
            api.write(grading, args.out)
            note = (
                f"Reports: {args.out / 'results.json'}, {args.out / 'junit.xml'} "
                f"(isolation: {grading.results['extra_data']['isolation']})"
            )
    except api.GraderError as e:
        print(f"grader: error: {e}", file=sys.stderr)
        if args.error_results and not args.inprocess:
            try:
                report.write_results(report.error_results(str(e)), args.out)
            except OSError:
                pass
        return 2
    except OSError as e:
        print(
            f"grader: error: {args.out}: cannot create the report folder ({e.strerror or e})", file=sys.stderr
        )
        return 2
    print(report.terminal(grading.scored, note="\n".join((*grading.notes, note))))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "grade":
        return grade(args)
    return 2
