"""A fake class for the staff tools: a Canvas bulk download of real-looking submissions.

Each submission is a zip holding `bpe/` with Python code (for the similarity check) and the
`bpe/fake.json` that `grade` below reads: the farm's fake grader, with test 3.1 graded as
`after_due_date`, as the kit's hidden speed tests are.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import instructor_fakes

KIT = Path(__file__).resolve().parents[2]
GRADE_FN = f"{Path(__file__)}:grade"


def grade(submission: Path, out_dir: Path, **kw):
    results = instructor_fakes.grade(submission, out_dir, **kw)
    if isinstance(results, dict) and "tests" in results:
        for t in results["tests"]:
            if t["number"] == "3.1":
                t["visibility"] = "after_due_date"
        (out_dir / "results.json").write_text(json.dumps(results))
    return results


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


def canvas_zip(
    download: Path, login: str, uid: str, sub: str, *, code: str, points: dict, late=False
) -> Path:
    """`login[_LATE]_uid_sub_bpe.zip`, as Canvas names a student's uploaded zip."""
    download.mkdir(parents=True, exist_ok=True)
    path = download / f"{login}{'_LATE' if late else ''}_{uid}_{sub}_bpe.zip"
    starter = (KIT / "starter/bpe/tokenizer.py").read_text()  # what everyone was given
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("bpe/__init__.py", "")
        z.writestr("bpe/char_bpe.py", code)
        z.writestr("bpe/tokenizer.py", starter)
        z.writestr("bpe/fake.json", json.dumps({"who": login, "points": points}))
    return path
