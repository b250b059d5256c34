"""A fake class for the staff tools: a Canvas bulk download of real-looking submissions, graded by
the farm through the real grader with the fake suite of tests/kit/instructor_fakes.py.

Each submission is a zip holding the fake `bpe/` package (the tests it passes are listed in
`bpe/fake.json`) beside real Python code for the similarity check. The suite's test 3.1 is
`after_due_date`, as the kit's hidden speed tests are.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import instructor_fakes

KIT = Path(__file__).resolve().parents[2]


def write_suite(root: Path) -> tuple[Path, Path]:
    """(tests folder, rubric): the fake suite, 100 points, test 3.1 shown after the due date."""
    return instructor_fakes.write_suite(root, visibility={"3.1": "after_due_date"})


def renamed(code: str) -> str:
    """The same program with its identifiers renamed: what a copier does first."""
    for old, new in (
        ("merges", "joins"),
        ("pair", "duo"),
        ("vocab", "table"),
        ("text", "data"),
        ("ids", "codes"),
    ):
        code = re.sub(rf"\b{old}\b", new, code)
    return code


def given() -> dict[str, str]:
    """What every student was given (path -> text): the kit's starter tokenizer and the fake
    package's harness, so the similarity check leaves them out as starter code."""
    files = instructor_fakes.submission_files()
    return {
        "bpe/__init__.py": files["bpe/__init__.py"],
        "bpe/tokenizer.py": (KIT / "starter/bpe/tokenizer.py").read_text(),
    }


def write_starter(root: Path) -> Path:
    """A starter folder holding `given()`."""
    for name, text in given().items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def canvas_zip(download: Path, login: str, uid: str, sub: str, *, code: str, passes=(), late=False) -> Path:
    """`login[_LATE]_uid_sub_bpe.zip`, as Canvas names a student's uploaded zip; `passes`: the
    numbers of the fake suite's tests the submission passes."""
    download.mkdir(parents=True, exist_ok=True)
    path = download / f"{login}{'_LATE' if late else ''}_{uid}_{sub}_bpe.zip"
    files = {**given(), **instructor_fakes.submission_files(points=passes), "bpe/char_bpe.py": code}
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path
