"""`python -m assignment.labs NAME --submission DIR`: run one lab against the bpe in DIR."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import LABS
from ._common import LabError, describe, load_bpe, student_frame


def _parser() -> argparse.ArgumentParser:
    listing = "\n".join(f"  {name:<12} {lab.TITLE}" for name, lab in LABS.items())
    parser = argparse.ArgumentParser(
        prog="python -m assignment.labs",
        description="Run an experiment on your own tokenizer.",
        epilog="labs:\n" + listing,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", nargs="?", help="which lab to run (see the list below)")
    parser.add_argument(
        "--submission", default="starter", help="folder that contains your bpe/ package (default: starter)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.name is None:
        parser.print_help()
        return 0
    if args.name not in LABS:
        print(f"error: no lab called {args.name!r}; choose one of: {', '.join(LABS)}", file=sys.stderr)
        return 2
    lab = LABS[args.name]
    folder = Path(args.submission)
    try:
        bpe = load_bpe(folder)
        lab.run(bpe)
    except LabError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except NotImplementedError as error:
        frame = student_frame(error, folder)
        # The stub's own message names it fully ("CharBPE.train is yours to write ...").
        name = str(error).split(" is yours")[0] if " is yours" in str(error) else None
        name = name or (frame.name if frame else None)
        what = f"`{name}` ({Path(frame.filename).name})" if frame and name else "a function"
        print(
            f"\nThis lab needs {what}, which still raises NotImplementedError.\n"
            f"It uses: {lab.NEEDS}.\nImplement it, then run `make lab NAME={args.name}` again.",
            file=sys.stderr,
        )
        return 1
    except Exception as error:  # the student's code failed: one clear line, no traceback
        print(f"\nerror: your code raised {describe(error, folder)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
