"""`bpe-kit staff {collect,finalize,release,similarity}` (or `python -m grader.staff ...`): the
course staff's steps around a farm's grading, from an LMS download to the students' pages.

`python -m grader.farm collect ...` (the old spelling) still works for one release; the farm's own
commands stay `bpe-kit farm {grade,merge,report}`.
"""

from __future__ import annotations

import argparse
import sys

from .. import i18n
from . import cli


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="bpe-kit staff", description=cli.__doc__.split("\n")[0])
    cli.add_commands(ap.add_subparsers(dest="cmd", required=True))
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    i18n.use(getattr(args, "lang", None) or i18n.ENGLISH)  # a page's language is given, never guessed
    return cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
