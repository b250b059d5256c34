"""`bpe-kit COMMAND ...` (or `python -m grader COMMAND ...`): the kit's one command line.

    bpe-kit grade SUBMISSION [--out DIR] [--tests PATTERN] [--part N] [--lang zh]   grade one submission
    bpe-kit grade --contract cs336 REPO [--python PATH]   grade a CS336 assignment-1 repository
    bpe-kit zip [FOLDER] [--out submission.zip]   the zip a student uploads (make submission)
    bpe-kit farm {grade,report,merge} ...         grade a whole class (grader/farm/)
    bpe-kit staff {collect,finalize,release,similarity} ...   the course staff's steps (grader/staff/)
    bpe-kit release {handout,gradescope} [--lang zh]  build dist/handout.zip or dist/autograder.zip
    bpe-kit fixtures [--engine ...]               regenerate the golden fixtures (grader/oracles/)
    bpe-kit lab NAME [--submission DIR]           one experiment on a bpe package (assignment/labs/)

`grade` and `zip` speak the language of `--lang`, else the environment's (grader/i18n.py).
`grade` and `zip` are defined here; the others are each their own tool's parser, reached by name,
imported only when asked for (a grade never loads the farm or the release builder).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from . import api, contracts, i18n, packing, report
from .errors import GraderError, PackingError
from .i18n import _
from .request import GradeRequest
from .sandbox.isolation import LEVELS, WITHOUT_NAMESPACES, namespaces_refused
from .suite import runner

# command -> (module whose main(argv) runs it, one line of help)
TOOLS = {
    "farm": ("grader.farm_cli", "grade a whole class: gradebook.csv, grades.json, report.html"),
    "staff": ("grader.staff.__main__", "the staff's steps: collect, finalize, release pages, similarity"),
    "release": ("grader.release.__main__", "build dist/handout.zip or dist/autograder.zip"),
    "fixtures": ("grader.oracles.fixtures", "regenerate the golden fixtures from the oracles"),
    "lab": ("assignment.labs.__main__", "run one experiment (a lab) on a bpe package"),
}


def add_lang_option(
    parser: argparse.ArgumentParser, what: str = "the report and every feedback message"
) -> None:
    parser.add_argument(
        "--lang",
        type=i18n.argument,
        default=None,
        help=f"the language of {what} (default: the environment's, LANGUAGE, LC_ALL, LC_MESSAGES or LANG; else en)",
    )


def add_ignore_requires_python_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ignore-requires-python",
        action="store_true",
        help="cs336: grade under the interpreter given even when the repository's requires-python "
        "excludes it (the report records it)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bpe-kit", description="The bpe-kit autograder and its tools.")
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
        choices=contracts.NAMES,
        default="kit",
        help="kit: a bpe/ package (default); cs336: a Stanford CS336 assignment-1 repository or zip",
    )
    g.add_argument(
        "--python",
        default=None,
        metavar="PATH",
        help="run the sandboxed worker under this interpreter (cs336 default: the repo's .venv/bin/python)",
    )
    add_ignore_requires_python_option(g)
    g.add_argument("--tests", metavar="PATTERN", help="only tests matching this pytest -k expression")
    g.add_argument("--part", metavar="N", help="only the tests of one part: 1, 2, 3 or E (efficiency)")
    g.add_argument("--tests-dir", type=Path, default=None, help="graded tests folder (default tests/graded)")
    g.add_argument("--rubric", type=Path, default=None, help="rubric file (default grader/rubric.toml)")
    g.add_argument("--timeout-total", type=float, default=None, help="give up after this many seconds")
    g.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        default=runner.default_jobs(),
        help="run the efficiency tests in a second process beside the others (2, the default where "
        "this process may use two cores) or everything in one (1); the grade is the same",
    )
    g.add_argument(
        "--suite-records",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the graded suite's raw per-test records (JSON), the grade's source",
    )
    g.add_argument(
        "--error-results",
        action="store_true",
        help="if grading cannot run, still write OUT/results.json saying why (Gradescope)",
    )
    g.add_argument(
        "--isolation",
        choices=LEVELS,
        default="auto",
        help="isolate workers less than the best available (to test the fallbacks)",
    )
    g.add_argument(
        "--fresh-workers",
        action="store_true",
        help="start a fresh worker for each test instead of forking one from a single import "
        "(slower; grades the same: for comparing the two)",
    )
    add_lang_option(g)
    z = sub.add_parser("zip", help="pack FOLDER/bpe into the zip you upload (make submission)")
    z.add_argument("folder", type=Path, nargs="?", default=Path("starter"))
    z.add_argument("--out", type=Path, default=Path("submission.zip"))
    add_lang_option(z, "its messages")
    for name, (_module, help_text) in TOOLS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def zip_submission(args: argparse.Namespace) -> int:
    try:
        names = packing.pack(args.folder, args.out)
    except PackingError as e:
        print(f"grader: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        said = _("{zip}: cannot write the zip ({error})").format(zip=args.out, error=e.strerror or e)
        print(f"grader: error: {said}", file=sys.stderr)
        return 2
    print(
        _("wrote {zip} ({count} files from {folder}/bpe): upload it to Gradescope").format(
            zip=args.out, count=len(names), folder=args.folder
        )
    )
    return 0


def request_of(args: argparse.Namespace) -> GradeRequest:
    """The grade `bpe-kit grade`'s options ask for."""
    return GradeRequest(
        tests=args.tests or None,
        part=args.part or None,
        tests_dir=args.tests_dir,
        rubric_path=args.rubric,
        inprocess=args.inprocess,
        timeout_total=args.timeout_total,
        hide=(args.out.resolve(),),
        isolation=args.isolation,
        fresh_workers=args.fresh_workers,
        contract=args.contract,
        python=args.python,
        ignore_requires_python=args.ignore_requires_python,
        jobs=args.jobs,
    )


def grade(args: argparse.Namespace) -> int:
    try:
        if not args.inprocess:
            args.out.mkdir(parents=True, exist_ok=True)
        grading = api.run(args.submission, request_of(args))
        if args.inprocess:
            note = _("In-process run, for debugging: no grade was written (grade without --inprocess).")
        else:
            api.write(grading, args.out)
            if args.suite_records:
                args.suite_records.write_text(json.dumps(grading.records, indent=1, sort_keys=True) + "\n")
            level = grading.results["extra_data"]["isolation"]
            note = _("Reports: {results}, {junit} (isolation: {level})").format(
                results=args.out / "results.json", junit=args.out / "junit.xml", level=level
            )
            if level in WITHOUT_NAMESPACES and args.isolation == "auto":
                note += "\n" + _("Your code ran without namespaces: {why}.").format(why=namespaces_refused())
            if groups := grading.results["extra_data"].get("kept_groups"):
                note += "\n" + _(
                    "Your code ran with this user's groups too ({groups}): whatever they may "
                    "open outside the sandbox's covers, it could (grade as a user in no other group)."
                ).format(groups=", ".join(groups))
    except GraderError as e:
        print(f"grader: error: {e}", file=sys.stderr)
        if args.error_results and not args.inprocess:
            try:
                report.write_results(report.error_results(str(e)), args.out)
            except OSError:
                pass
        return 2
    except OSError as e:
        said = _("{folder}: cannot create the report folder ({error})").format(
            folder=args.out, error=e.strerror or e
        )
        print(f"grader: error: {said}", file=sys.stderr)
        return 2
    print(report.terminal(grading.scored, note="\n".join((*grading.notes, note)), scope=grading.scope))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in TOOLS:
        module = TOOLS[argv[0]][0]
        try:
            tool = importlib.import_module(module)
        except ModuleNotFoundError as e:  # the handout ships the grader without the instructors' tools
            if not e.name or not (module + ".").startswith(e.name + "."):
                raise
            print(f"bpe-kit: error: `{argv[0]}` is not part of this copy of the kit", file=sys.stderr)
            return 2
        return tool.main(argv[1:])
    args = build_parser().parse_args(argv)
    i18n.use(args.lang or i18n.from_environment())
    if args.command == "grade":
        return grade(args)
    if args.command == "zip":
        return zip_submission(args)
    return 2
