"""python -m grader.release {handout,gradescope}: build dist/handout.zip or dist/autograder.zip.

`handout --lang zh` builds the handout in Chinese, dist/handout-zh.zip."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import i18n
from ..errors import BundleError, LeakError, RubricError, StarterError, TranslationError
from ..paths import KIT_ROOT as KIT
from . import gradescope, handout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.release", description=__doc__)
    ap.add_argument("what", choices=["handout", "gradescope"])
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="zip to write (default dist/<what>.zip, dist/handout-<lang>.zip)",
    )
    ap.add_argument(
        "--lang",
        type=i18n.argument,
        default=i18n.ENGLISH,
        help="the language of the handout, or of the Gradescope bundle's grades and feedback (default en)",
    )
    args = ap.parse_args(argv)
    try:
        if args.what == "handout":
            dest = args.out or handout.default_dest(KIT, args.lang)
            files = handout.build(KIT, dest, args.lang)
        else:
            dest = args.out or KIT / "dist/autograder.zip"
            files = gradescope.build(KIT, dest, args.lang)
    except (LeakError, StarterError, BundleError, RubricError, TranslationError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {dest} ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
