"""What every lab shares: loading your `bpe`, turning "not implemented yet" into advice, tables."""

from __future__ import annotations

import importlib
import sys
import time
import traceback
import unicodedata
from contextlib import contextmanager
from pathlib import Path


class LabError(Exception):
    """A problem the lab explains in one line (no traceback): bad folder, import error, ..."""


def load_bpe(submission: Path):
    """Import the `bpe` package found in `submission` (a folder that contains bpe/)."""
    folder = submission.resolve()
    if folder.is_file():
        raise LabError(
            f"{submission}: the labs run on a folder that contains bpe/, not on a file (unzip it first)"
        )
    if not (folder / "bpe" / "__init__.py").is_file():
        raise LabError(
            f"{submission}: no bpe/__init__.py in this folder (use --submission DIR, "
            "where DIR contains your bpe/ folder)"
        )
    for name in [n for n in sys.modules if n == "bpe" or n.startswith("bpe.")]:
        del sys.modules[name]
    sys.path.insert(0, str(folder))  # the student's package is found by its folder, as Python would
    try:
        module = importlib.import_module("bpe")
    except SyntaxError as error:
        raise LabError(f"{error.filename}, line {error.lineno}: {error.msg}") from None
    except Exception as error:
        raise LabError(f"importing your bpe failed: {describe(error, folder)}") from None
    finally:
        sys.path.remove(str(folder))
    if not Path(module.__file__).resolve().is_relative_to(folder):
        raise LabError(f"imported bpe from {module.__file__}, not from {folder}")
    return module


def student_frame(error: BaseException, folder: Path):
    """The innermost traceback frame that lies inside the submission (None if there is none)."""
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if Path(f.filename).resolve().is_relative_to(folder.resolve())
    ]
    return frames[-1] if frames else None


def describe(error: BaseException, folder: Path) -> str:
    """One line: the exception and where in the student's code it was raised."""
    text = f"{type(error).__name__}: {error}"
    frame = student_frame(error, folder)
    if frame is not None:
        where = Path(frame.filename).resolve().relative_to(folder.resolve())
        text += f" (in {frame.name}, {where} line {frame.lineno})"
    return text


def table(headers: list[str], rows: list[list], right: set[int] = frozenset()) -> str:
    """A plain-text table; columns whose index is in `right` are right-aligned (numbers)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(width(row[i]) for row in cells) for i in range(len(headers))]

    def pad(i: int, cell: str, w: int) -> str:
        fill = " " * (w - width(cell))
        return fill + cell if i in right else cell + fill

    def line(row):
        return "  ".join(pad(i, c, w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(r) for r in cells[1:]])


def width(text: str) -> int:
    """Columns `text` takes in a terminal: Chinese, Korean and emoji characters take two."""
    return sum(
        2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in text
    )


def heading(title: str) -> None:
    print(title)
    print("=" * len(title))


def show(text: str) -> str:
    """A token's text made visible: spaces as '·', newlines as '⏎'."""
    return text.replace(" ", "·").replace("\n", "⏎")


@contextmanager
def stopwatch():
    """`with stopwatch() as elapsed: ...` then `elapsed()` gives the seconds spent inside."""
    start = time.perf_counter()
    end = []
    yield lambda: (end[0] if end else time.perf_counter()) - start
    end.append(time.perf_counter())


def corpus():
    """The kit's deterministic story generator (data/corpus.py)."""
    try:  # `python -m assignment.labs` from the kit's folder: data/ is beside assignment/
        from data import corpus as module
    except ImportError:
        raise LabError(
            "this lab needs data/corpus.py from the assignment folder; run it from "
            "the folder that contains data/ and assignment/"
        ) from None
    return module


def byte_vocab() -> dict[int, bytes]:
    """The starting vocabulary of byte-level BPE: id i is the single byte i."""
    return {i: bytes([i]) for i in range(256)}
