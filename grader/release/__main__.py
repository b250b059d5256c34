"""python -m grader.release {handout,gradescope}: build dist/handout.zip or dist/autograder.zip."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import i18n
from ..errors import BundleError, LeakError, RubricError, StarterError
from ..paths import KIT_ROOT as KIT
from . import gradescope, handout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.release", description=__doc__)
    ap.add_argument("what", choices=["handout", "gradescope"])
    ap.add_argument("--out", type=Path, default=None, help="zip to write (default dist/<what>.zip)")
    ap.add_argument(
        "--lang",
        type=i18n.argument,
        default=i18n.ENGLISH,
        help="gradescope: the language its grades and feedback are written in (default en)",
    )
    args = ap.parse_args(argv)
    try:
        if args.what == "handout":
            dest = args.out or KIT / "dist/handout.zip"
            files = handout.build(KIT, dest)
        else:
            dest = args.out or KIT / "dist/autograder.zip"
            files = gradescope.build(KIT, dest, args.lang)
    except (LeakError, StarterError, BundleError, RubricError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {dest} ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
