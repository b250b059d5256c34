"""`python -m assignment.labs NAME --submission DIR [--lang en|zh]`: run one lab against the bpe in DIR."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import LABS
from ._common import LANGUAGES, WORDS, LabError, describe, language, load_bpe, student_frame


def _language(argv: list[str] | None) -> str:
    """--lang if given (a wrong one is left to the full parser to refuse), else the locale's."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--lang")
    lang = pre.parse_known_args(argv)[0].lang
    return lang if lang in LANGUAGES else language()


def _parser(lang: str) -> argparse.ArgumentParser:
    words = WORDS[lang]
    listing = "\n".join(f"  {name:<12} {lab.WORDS[lang]['title']}" for name, lab in LABS.items())
    parser = argparse.ArgumentParser(
        prog="python -m assignment.labs",
        description=words["description"],
        epilog=words["labs"] + "\n" + listing,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", nargs="?", help=words["name_help"])
    parser.add_argument("--submission", default="starter", help=words["submission_help"])
    parser.add_argument("--lang", choices=LANGUAGES, default=lang, help=words["lang_help"])
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser(_language(argv))
    args = parser.parse_args(argv)
    words = WORDS[args.lang]
    if args.name is None:
        parser.print_help()
        return 0
    if args.name not in LABS:
        message = words["no_lab"].format(name=args.name, names=", ".join(LABS))
        print(words["error"].format(message=message), file=sys.stderr)
        return 2
    lab = LABS[args.name]
    folder = Path(args.submission)
    try:
        bpe = load_bpe(folder, args.lang)
        lab.run(bpe, args.lang)
    except LabError as error:
        print(words["error"].format(message=error.message(args.lang)), file=sys.stderr)
        return 2
    except NotImplementedError as error:
        frame = student_frame(error, folder)
        # The stub's own message names it fully ("CharBPE.train is yours to write ...").
        name = str(error).split(" is yours")[0] if " is yours" in str(error) else None
        name = name or (frame.name if frame else None)
        what = f"`{name}` ({Path(frame.filename).name})" if frame and name else words["a_function"]
        print(
            words["needs"].format(what=what, needs=lab.WORDS[args.lang]["needs"], name=args.name),
            file=sys.stderr,
        )
        return 1
    except Exception as error:  # the student's code failed: one clear line, no traceback
        print(words["raised"].format(error=describe(error, folder, args.lang)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
