"""The course staff's commands, `bpe-kit staff`: collect, finalize, release, similarity.

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

from .. import i18n
from ..contracts import NAMES as CONTRACTS
from ..errors import RosterError, RubricError, StaffFileError
from . import class_roster, late_policy, overrides, similarity
from .class_results import read_class
from .feedback_pages import Moment, release
from .final_grades import MARKED, MISSING, compute
from .lms_download import collect, roster_missing, submission_times
from .lms_export import canvas_csv, gradescope_csv, staff_gradebook_csv
from .timestamps import parse_time

COMMANDS = ("collect", "finalize", "release", "similarity")
STAFF_DIR = "staff"  # finalize's files, inside the farm's output folder


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add the staff subcommands to `sub`: `bpe-kit staff`'s, and the farm's (the old spelling)."""
    c = sub.add_parser("collect", help="copy an LMS bulk download into one folder or zip per student id")
    c.add_argument("download", type=Path, help="the unzipped Canvas or Gradescope download, or plain folders")
    c.add_argument("--roster", type=Path, required=True)
    c.add_argument("--into", type=Path, required=True, help="a new folder: the farm's submissions")
    c.add_argument(
        "--times",
        type=Path,
        help="submission times the LMS exported: a submissions CSV (user_id,submitted_at) or "
        "Gradescope's submission_metadata.yml",
    )
    c.add_argument(
        "--use-mtime",
        action="store_true",
        help="take submission times from file times when nothing else gives them",
    )

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("out", type=Path, help="the farm's output folder")
    add_grade_options(common, roster_required=True)
    common.add_argument("--assignment", default="BPE tokenizer", help="the assignment's name in the LMS")
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
    r.add_argument(
        "--lang",
        type=i18n.argument,
        default=i18n.ENGLISH,
        help="the language of the students' pages (en or zh; default en): grade with the same --lang",
    )

    s = sub.add_parser("similarity", help="rank pairs of similar submissions (never changes a grade)")
    s.add_argument("submissions", type=Path)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument(
        "--starter",
        type=Path,
        help="what every student was given, left out of every comparison: the starter folder, or "
        "(--contract cs336) the assignment's skeleton repository",
    )
    s.add_argument(
        "--contract",
        choices=CONTRACTS,
        default="kit",
        help="cs336: each submission is a CS336 assignment-1 repository (or a zip of one)",
    )
    s.add_argument("--earlier", type=Path, help="a folder of earlier years' submissions to compare against")
    s.add_argument(
        "--threshold", type=float, default=0.1, help="list pairs above this similarity (default 0.1)"
    )


def add_grade_options(parser: argparse.ArgumentParser, *, roster_required: bool) -> None:
    """What final grades are computed from: finalize, release, and the farm's class report."""
    parser.add_argument("--roster", type=Path, required=roster_required, help="the class roster (CSV)")
    parser.add_argument("--policy", type=Path, help="the late policy (TOML)")
    parser.add_argument("--overrides", type=Path, help="manual adjustments (CSV)")
    parser.add_argument("--submissions", type=Path, help="the folder `collect` wrote (for submission times)")
    parser.add_argument(
        "--allow-above-max",
        action="store_true",
        help="overrides may take a total above the maximum (a bonus); by default it is capped there",
    )


def class_grades(args: argparse.Namespace, source: str | None) -> dict:
    """What the farm's class report shows of the final grades, as plain data: the final score of
    every student beside the raw one when a late policy or overrides exist, and the roster's
    students with no submission (from --roster, else from what `collect` recorded in `source`)."""
    if args.roster is None:
        if args.policy or args.overrides or args.submissions or args.allow_above_max:
            raise StaffFileError("--policy, --overrides, --submissions and --allow-above-max need --roster")
        return {"final": None, "missing": roster_missing(source) if source else None, "roster": None}
    grades, _ = _grades(args)
    adjusted = bool(args.policy or args.overrides)
    return {
        "final": {
            g.student.student_id: g.final if g.has_grade else None for g in grades if g.status != MISSING
        }
        if adjusted
        else None,
        "missing": [
            {"student": g.student.student_id, "name": g.student.name} for g in grades if g.status == MISSING
        ],
        "roster": str(args.roster),
    }


def _grades(args: argparse.Namespace):
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


def run(args: argparse.Namespace) -> int:
    try:
        if args.cmd == "collect":
            col = collect(
                args.download,
                class_roster.load(args.roster),
                args.into,
                use_mtime=args.use_mtime,
                times=args.times,
            )
            for name in col.unmatched:
                print(f"matches nobody on the roster (not collected): {name}", file=sys.stderr)
            if col.missing:
                print(
                    f"no submission from {len(col.missing)} student(s) on the roster: "
                    + ", ".join(f"{m['student']} ({m['name']})" for m in col.missing),
                    file=sys.stderr,
                )
            untimed = sorted(s for s, c in col.students.items() if c.submitted_at is None)
            if untimed:
                print(
                    f"no submission time for {len(untimed)} student(s) (the late policy will not apply "
                    f"to them; give --times FILE or the roster's submitted_at): " + ", ".join(untimed),
                    file=sys.stderr,
                )
            print(f"collected {len(col.students)} submission(s) into {args.into}")
            return 0
        if args.cmd == "finalize":
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
            grades, policy = _grades(args)
            now = parse_time(args.now, "--now") if args.now else datetime.now(UTC)
            written = release(grades, args.to, Moment.at(now, policy, args.published), args.assignment)
            print(f"wrote {len(written)} feedback pages into {args.to}")
            return 0
        pairs, views, skipped = similarity.compare(
            args.submissions,
            starter=args.starter,
            earlier=args.earlier,
            threshold=args.threshold,
            contract=args.contract,
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
