"""python -m grader.farm {grade,merge,report}: grade a class, combine shards, render the report.

The staff's commands are `bpe-kit staff` (grader/staff/); `python -m grader.farm collect ...` and
the others still work, for one release, as the old spelling of the same commands."""

# The farm's command line sits above the farm and the staff's tools: `report --roster` shows the
# staff's final grades beside raw ones, and the staff's commands keep their old spelling here.
# `python -m grader.farm` runs it (grader/farm/__main__.py); the farm itself imports no staff.

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from . import i18n
from .api import isolation_level
from .cli import add_ignore_requires_python_option
from .contracts import NAMES as CONTRACTS
from .errors import MergeError, PythonError, RosterError, RubricError, StaffFileError, UnknownContract
from .farm import current, gradebook, records, report
from .farm.batch import grade_all, not_readable, read_manifest
from .farm.merge import merge
from .farm.roster import parse_shard
from .request import GradeRequest
from .sandbox.isolation import PRIVILEGED_GROUPS, Isolation, kept_groups, namespaces_refused
from .staff import cli as staff_cli


def output_records(out: Path) -> tuple[dict, dict[str, dict]]:
    """An output's manifest as it reads today (grader/farm/current.py) and the records it is
    responsible for (its manifest's students)."""
    manifest = read_manifest(out)
    if manifest is None:
        raise RosterError(not_readable(out))
    recs = records.read_records(out)
    return current.today(out, manifest), {s: recs[s] for s in manifest["assigned"] if s in recs}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m grader.farm", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("grade", help="grade a directory of submissions (one folder or zip per student id)")
    g.add_argument("submissions", type=Path)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--jobs", type=int, default=1, help="students graded in parallel (default 1)")
    g.add_argument("--shard", default=None, help="K/N: grade only shard K of N of the sorted roster")
    g.add_argument("--only", nargs="+", metavar="STUDENT", help="grade only these students")
    g.add_argument("--force", action="store_true", help="regrade students that already have a current result")
    g.add_argument(
        "--keep-stale",
        action="store_true",
        help="keep results graded by another kit or submission (listed as STALE everywhere)",
    )
    g.add_argument(
        "--budget",
        type=float,
        default=None,
        help="wall-clock seconds per student (default: a wide margin over the reference's time here)",
    )
    g.add_argument(
        "--tests",
        default=None,
        metavar="EXPR",
        help="regrade only the graded tests matching this pytest -k expression, merged into the records",
    )
    g.add_argument("--tests-dir", type=Path, default=None, help="graded tests folder (default tests/graded)")
    g.add_argument("--rubric", type=Path, default=None, help="rubric file (default grader/rubric.toml)")
    g.add_argument(
        "--contract",
        choices=CONTRACTS,
        default="kit",
        help="cs336: each submission is a CS336 assignment-1 repository (or a zip of one)",
    )
    g.add_argument(
        "--python",
        default=None,
        metavar="PATH",
        help="run every sandboxed worker under this interpreter (cs336 default: each repository's .venv)",
    )
    add_ignore_requires_python_option(g)
    g.add_argument(
        "--fresh-workers",
        action="store_true",
        help="a fresh worker for each test instead of forking each from one import (slower; the same grades)",
    )
    g.add_argument(
        "--allow-weak-isolation",
        action="store_true",
        help="grade even without namespaces: students' code then runs as you and can reach the kit",
    )
    g.add_argument(
        "--lang",
        type=i18n.argument,
        default=i18n.ENGLISH,
        help="the language of every student's results.json and feedback (en or zh; default en)",
    )
    m = sub.add_parser("merge", help="combine shard outputs; refuses (exit 1) naming every problem")
    m.add_argument("inputs", type=Path, nargs="+")
    m.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report", help="(re)write OUT/gradebook.csv, grades.json and report.html")
    r.add_argument("out", type=Path)
    r.add_argument(
        "--feedback",
        type=Path,
        default=None,
        help="the folder `release --to` wrote, for the report's links to each student's page (default OUT/feedback)",
    )
    staff_cli.add_grade_options(r, roster_required=False)  # final beside raw, the roster's missing
    staff_cli.add_commands(sub)  # the old spelling of `bpe-kit staff ...`, kept for one release
    return ap


def _publish(
    out: Path, manifest: dict, recs: dict[str, dict], feedback: Path | None = None, grades: dict | None = None
) -> None:
    table = gradebook.write(out, manifest, recs)
    report.write(out, manifest, recs, feedback=feedback, grades=grades)
    stale = [r for r in table if r["stale"]]
    if stale:
        print(
            f"STALE: {len(stale)} student(s) have results graded by another kit or submission than "
            "today's (the STALE column of gradebook.csv): " + ", ".join(r["student"] for r in stale),
            file=sys.stderr,
        )
    incomplete = [r["student"] for r in table if r["reason"].startswith("INCOMPLETE")]
    if incomplete:
        print(
            f"INCOMPLETE: {len(incomplete)} student(s) lack results for some rubric tests (graded "
            "with --tests only; their totals are not grades yet): " + ", ".join(incomplete),
            file=sys.stderr,
        )
    print(f"wrote {out}/gradebook.csv, grades.json, report.html (and its pages in {out}/report/)")


def _grade(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise RosterError("--jobs must be at least 1")
    if args.budget is not None and not args.budget > 0:
        raise RosterError("--budget must be a positive number of seconds")
    level = isolation_level()
    if level == Isolation.PROCESS_GROUP and not args.allow_weak_isolation:
        raise RosterError(
            f"grading a class needs namespaces (or root), and there are none: {namespaces_refused()}. "
            "Without them students' code runs as you and could change the kit or other students' "
            "results. Pass --allow-weak-isolation to grade anyway."
        )
    groups = kept_groups() if level == Isolation.USERNS else []
    risky = [g for g in groups if g in PRIVILEGED_GROUPS]
    if risky and not args.allow_weak_isolation:
        raise RosterError(
            f"students' code would run with your groups too, {', '.join(risky)} among them: an ordinary "
            "user's namespaces cannot drop them, and those open the host (a disk, a container daemon). "
            "Grade as a user outside them, or as root; pass --allow-weak-isolation to grade anyway."
        )
    if groups:
        print(
            f"note: students' code runs with your groups too ({', '.join(groups)}): it can read what they "
            "may read outside what the sandbox covers; each result records them (kept_groups).",
            file=sys.stderr,
        )
    shard = parse_shard(args.shard) if args.shard else None
    try:
        grade_all(
            args.submissions,
            args.out,
            jobs=args.jobs,
            shard=shard,
            only=args.only,
            force=args.force,
            keep_stale=args.keep_stale,
            budget=args.budget,
            tests=args.tests,
            request=GradeRequest(
                tests_dir=args.tests_dir,
                rubric_path=args.rubric,
                contract=args.contract,
                python=args.python,
                ignore_requires_python=args.ignore_requires_python,
                fresh_workers=args.fresh_workers,
            ),
        )
    except KeyboardInterrupt:
        manifest, recs = output_records(args.out)
        _publish(args.out, manifest, recs)
        print(
            f"interrupted: every committed result is kept in {args.out}; the students this run had "
            "not finished are `interrupted`: rerun the same command to finish them",
            file=sys.stderr,
        )
        return 130
    manifest, recs = output_records(args.out)
    _publish(args.out, manifest, recs)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    i18n.use(getattr(args, "lang", None) or i18n.ENGLISH)  # the class report itself is English
    if args.cmd in staff_cli.COMMANDS:
        return staff_cli.run(args)
    try:
        if args.cmd == "grade":
            return _grade(args)
        if args.cmd == "merge":
            rep, _, _ = merge(args.inputs, args.out)
            for line in rep.lines():
                print(
                    line, file=sys.stdout if rep.complete and not line.startswith("problem") else sys.stderr
                )
            if not rep.complete:
                return 1
            _publish(args.out, *output_records(args.out))
            return 0
        manifest, recs = output_records(args.out)
        grades = staff_cli.class_grades(args, manifest.get("source"))
        _publish(args.out, manifest, recs, args.feedback, grades)
        return 0
    except (RosterError, MergeError, RubricError, StaffFileError, PythonError, UnknownContract) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops a run as Ctrl-C does
    sys.exit(main())
