"""The staff subcommands of `python -m grader.farm`: collect, finalize, release, similarity.

collect DOWNLOAD --roster roster.csv --into submissions/      LMS download -> one entry per id
finalize OUT --roster roster.csv [--policy late.toml] [--overrides overrides.csv]
release OUT --roster roster.csv --to feedback/ [--published]  one page per student
similarity submissions/ --starter starter/ --out similarity/ [--earlier past/]
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from ..errors import RosterError, RubricError, StaffFileError

COMMANDS = ("collect", "finalize", "release", "similarity")
STAFF_DIR = "staff"  # finalize's files, inside the farm's output folder


def add_commands(sub) -> None:
    """Add the staff subcommands to the farm's subparsers."""
    c = sub.add_parser("collect", help="copy an LMS bulk download into one folder or zip per student id")
    c.add_argument("download", type=Path, help="the unzipped Canvas or Gradescope download, or plain folders")
    c.add_argument("--roster", type=Path, required=True)
    c.add_argument("--into", type=Path, required=True, help="a new folder: the farm's submissions")
    c.add_argument(
        "--use-mtime",
        action="store_true",
        help="take submission times from file times when nothing else gives them",
    )

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("out", type=Path, help="the farm's output folder")
    common.add_argument("--roster", type=Path, required=True)
    common.add_argument("--policy", type=Path, help="the late policy (TOML)")
    common.add_argument("--overrides", type=Path, help="manual adjustments (CSV)")
    common.add_argument("--submissions", type=Path, help="the folder `collect` wrote (for submission times)")
    common.add_argument("--assignment", default="BPE tokenizer", help="the assignment's name in the LMS")
    common.add_argument(
        "--allow-above-max",
        action="store_true",
        help="overrides may take a total above the maximum (a bonus); by default it is capped there",
    )
    f = sub.add_parser(
        "finalize", parents=[common], help="final grades: penalties, overrides, Canvas and Gradescope CSVs"
    )
    f.add_argument("--canvas-id", default="", help="Canvas's assignment id, for the column name")
    r = sub.add_parser(
        "release", parents=[common], help="write every student's feedback page into one folder"
    )
    r.add_argument("--to", type=Path, required=True)
    r.add_argument(
        "--published", action="store_true", help="grades are published: show after_published tests"
    )
    r.add_argument("--now", default=None, help="the time to release as of (ISO 8601; default: now)")

    s = sub.add_parser("similarity", help="rank pairs of similar submissions (never changes a grade)")
    s.add_argument("submissions", type=Path)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--starter", type=Path, help="the starter code, left out of every comparison")
    s.add_argument("--earlier", type=Path, help="a folder of earlier years' submissions to compare against")
    s.add_argument(
        "--threshold", type=float, default=0.1, help="list pairs above this similarity (default 0.1)"
    )


def _grades(args):
    from . import class_roster, late_policy, overrides
    from .class_results import read_class
    from .final_grades import MARKED, compute
    from .lms_download import submission_times

    if not args.out.is_dir():
        raise StaffFileError(f"{args.out}: not a farm output folder")
    roster = class_roster.load(args.roster)
    policy = late_policy.load(args.policy) if args.policy else None
    adjustments = overrides.load(args.overrides) if args.overrides else []
    times = submission_times(args.submissions) if args.submissions else {}
    grades, strays = compute(
        read_class(args.out),
        roster,
        policy=policy,
        overrides=adjustments,
        times=times,
        allow_above_max=args.allow_above_max,
    )
    for s in strays:
        print(f"not on the roster (left out): {s}", file=sys.stderr)
    for g in grades:
        if not g.has_grade:
            print(f"{g.student.student_id}: {g.status}, no grade exported: {g.message}", file=sys.stderr)
        elif g.status in MARKED:
            print(
                f"{g.student.student_id}: {g.status}, graded on the tests that finished: {g.message}",
                file=sys.stderr,
            )
        if g.lateness and g.lateness.reason.startswith("no submission time") and g.status != "missing":
            print(f"{g.student.student_id}: {g.lateness.reason}", file=sys.stderr)
    return grades, policy


def run(args) -> int:
    try:
        if args.cmd == "collect":
            from . import class_roster
            from .lms_download import collect

            col = collect(args.download, class_roster.load(args.roster), args.into, use_mtime=args.use_mtime)
            for name in col.unmatched:
                print(f"matches nobody on the roster (not collected): {name}", file=sys.stderr)
            print(f"collected {len(col.students)} submission(s) into {args.into}")
            return 0
        if args.cmd == "finalize":
            from .lms_export import canvas_csv, gradescope_csv, staff_gradebook_csv

            grades, _ = _grades(args)
            d = args.out / STAFF_DIR
            d.mkdir(exist_ok=True)
            (d / "final_gradebook.csv").write_text(staff_gradebook_csv(grades), encoding="utf-8")
            (d / "canvas.csv").write_text(
                canvas_csv(grades, args.assignment, args.canvas_id), encoding="utf-8"
            )
            (d / "gradescope.csv").write_text(gradescope_csv(grades), encoding="utf-8")
            missing = sum(g.status == "missing" for g in grades)
            print(
                f"wrote {d}/final_gradebook.csv, canvas.csv, gradescope.csv ({len(grades)} students, {missing} missing)"
            )
            return 0
        if args.cmd == "release":
            from .feedback_pages import Moment, release
            from .timestamps import parse_time

            grades, policy = _grades(args)
            now = parse_time(args.now, "--now") if args.now else datetime.now(UTC)
            written = release(grades, args.to, Moment.at(now, policy, args.published), args.assignment)
            print(f"wrote {len(written)} feedback pages into {args.to}")
            return 0
        from . import similarity

        pairs, views, skipped = similarity.compare(
            args.submissions, starter=args.starter, earlier=args.earlier, threshold=args.threshold
        )
        similarity.write(args.out, pairs, views, skipped)
        print(
            f"wrote {args.out}/similarity.csv and similarity.html ({len(pairs)} pairs above {args.threshold:g})"
        )
        return 0
    except (StaffFileError, RosterError, RubricError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        print(f"error: {e.name} is not installed: pip install -e '.[staff]'", file=sys.stderr)
        return 2
