"""What every lab shares: loading your `bpe`, turning "not implemented yet" into advice, tables,
and the language the labs speak (English or Chinese, as the handout)."""

from __future__ import annotations

import importlib
import sys
import time
import traceback
import unicodedata
from contextlib import contextmanager
from pathlib import Path

from grader import i18n

LANGUAGES = tuple(i18n.LANGUAGES)

# The words every lab shares; each lab has its own WORDS, with the same keys in every language.
WORDS = {
    "en": {
        "error": "error: {message}",
        "no_lab": "no lab called {name!r}; choose one of: {names}",
        "a_function": "a function",
        "needs": "\nThis lab needs {what}, which still raises NotImplementedError.\n"
        "It uses: {needs}.\nImplement it, then run `make lab NAME={name}` again.",
        "raised": "\nerror: your code raised {error}",
        "where": " (in {function}, {file} line {line})",
        "is_a_file": "{submission}: the labs run on a folder that contains bpe/, not on a file (unzip it first)",
        "no_package": "{submission}: no bpe/__init__.py in this folder (use --submission DIR, "
        "where DIR contains your bpe/ folder)",
        "syntax": "{file}, line {line}: {message}",
        "import_failed": "importing your bpe failed: {error}",
        "elsewhere": "imported bpe from {found}, not from {folder}",
        "no_corpus": "this lab needs data/corpus.py from the assignment folder; run it from "
        "the folder that contains data/ and assignment/",
        "description": "Run an experiment on your own tokenizer.",
        "labs": "labs:",
        "name_help": "which lab to run (see the list below)",
        "submission_help": "folder that contains your bpe/ package (default: starter)",
        "lang_help": "the language of the lab's words: en or zh (default: the environment's, LANGUAGE, "
        "LC_ALL, LC_MESSAGES or LANG; else en)",
        "yes": "yes",
        "no": "NO",
    },
    "zh": {
        "error": "错误：{message}",
        "no_lab": "没有叫 {name!r} 的实验；可选的有：{names}",
        "a_function": "一个函数",
        "needs": "\n这个实验需要 {what}，但它还在引发 NotImplementedError。\n"
        "它用到：{needs}。\n先实现它，然后再运行 `make lab NAME={name}`。",
        "raised": "\n错误：你的代码引发了 {error}",
        "where": "（在 {function} 中，{file} 第 {line} 行）",
        "is_a_file": "{submission}：实验要在一个含有 bpe/ 的文件夹上运行，而不是在文件上（先解压）",
        "no_package": "{submission}：这个文件夹里没有 bpe/__init__.py（用 --submission DIR，"
        "DIR 是含有你的 bpe/ 文件夹的那个文件夹）",
        "syntax": "{file}，第 {line} 行：{message}",
        "import_failed": "导入你的 bpe 失败：{error}",
        "elsewhere": "导入的 bpe 来自 {found}，而不是 {folder}",
        "no_corpus": "这个实验需要作业文件夹里的 data/corpus.py；请在含有 data/ 和 assignment/ "
        "的文件夹里运行",
        "description": "在你自己的分词器上做一个实验。",
        "labs": "实验：",
        "name_help": "要运行哪个实验（见下面的列表）",
        "submission_help": "含有你的 bpe/ 包的文件夹（默认：starter）",
        "lang_help": "实验输出的语言：en 或 zh（默认：按环境变量 LANGUAGE、LC_ALL、LC_MESSAGES 或 LANG；"
        "否则为 en）",
        "yes": "是",
        "no": "否",
    },
}


def language(environ=None) -> str:
    """The labs' language when --lang is not given: the grader's, as gettext reads the environment
    (LANGUAGE, LC_ALL, LC_MESSAGES, LANG: grader/i18n.py), so a lab and a grade speak alike."""
    return i18n.from_environment(environ)


class LabError(Exception):
    """A problem the lab explains in one line (no traceback): bad folder, import error, ...

    It holds a key of WORDS and the values to fill in, so it is said in the lab's language."""

    def __init__(self, key: str, **fields):
        super().__init__(key)
        self.key, self.fields = key, fields

    def message(self, lang: str) -> str:
        return WORDS[lang][self.key].format(**self.fields)


def load_bpe(submission: Path, lang: str = "en"):
    """Import the `bpe` package found in `submission` (a folder that contains bpe/)."""
    folder = submission.resolve()
    if folder.is_file():
        raise LabError("is_a_file", submission=submission)
    if not (folder / "bpe" / "__init__.py").is_file():
        raise LabError("no_package", submission=submission)
    for name in [n for n in sys.modules if n == "bpe" or n.startswith("bpe.")]:
        del sys.modules[name]
    sys.path.insert(0, str(folder))  # the student's package is found by its folder, as Python would
    try:
        module = importlib.import_module("bpe")
    except SyntaxError as error:
        raise LabError("syntax", file=error.filename, line=error.lineno, message=error.msg) from None
    except Exception as error:
        raise LabError("import_failed", error=describe(error, folder, lang)) from None
    finally:
        sys.path.remove(str(folder))
    if not Path(module.__file__).resolve().is_relative_to(folder):
        raise LabError("elsewhere", found=module.__file__, folder=folder)
    return module


def student_frame(error: BaseException, folder: Path):
    """The innermost traceback frame that lies inside the submission (None if there is none)."""
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if Path(f.filename).resolve().is_relative_to(folder.resolve())
    ]
    return frames[-1] if frames else None


def describe(error: BaseException, folder: Path, lang: str = "en") -> str:
    """One line: the exception and where in the student's code it was raised."""
    text = f"{type(error).__name__}: {error}"
    frame = student_frame(error, folder)
    if frame is not None:
        where = Path(frame.filename).resolve().relative_to(folder.resolve())
        text += WORDS[lang]["where"].format(function=frame.name, file=where, line=frame.lineno)
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
    print("=" * width(title))


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
        raise LabError("no_corpus") from None
    return module


def byte_vocab() -> dict[int, bytes]:
    """The starting vocabulary of byte-level BPE: id i is the single byte i."""
    return {i: bytes([i]) for i in range(256)}
