"""A small graded suite and fake submissions, so the farm is tested fast through the real grader.

The suite (`write_suite`) has four tests worth 10, 20, 30 and 40 points, as a rubric with
`total = 100`; each asks the submission whether it passes. A fake submission carries
`bpe/fake.json`: {"points": {"1.1": 10, ...} (a test passes when its number is listed),
"sleep": seconds spent in every test, "hang": a test number that loops for ever, "ratio": the
speed test's ratio to its budget}. Every call appends "<who> <test>" to the file named by
`bpe/log_path` (outside the sandbox's view it is /dev/null), so tests can see who was graded.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

RUBRIC = [
    ("1.1", "merge", 10, "test_merge"),
    ("1.2", "train", 20, "test_train"),
    ("2.1", "encode", 30, "test_encode"),
    ("3.1", "speed", 40, "test_speed"),
]

# The farm budget (wall seconds per student) of a test with a "hang": the endless loop burns a core
# until it ends, so it is short, yet far above the fake suite's second or two per student.
HANG_BUDGET = 10

SUBMISSION = """
import json, os, time

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "fake.json")) as f:
    SPEC = json.load(f)


def passes(number):
    if SPEC.get("hang") == number:
        while True:  # an endless loop: it works all along, so only the time budget ends it
            pass
    time.sleep(SPEC.get("sleep", 0))
    return number in SPEC.get("points", {})


def ratio():
    return SPEC.get("ratio")
"""


def write_suite(root: Path, *, points=None, total: int | None = 100, visibility=None) -> tuple[Path, Path]:
    """(tests folder, rubric) of the four-test suite; `points` and `visibility` override a test's
    points and visibility ("visible" unless given) by number."""
    tests = root / "graded"
    tests.mkdir(parents=True, exist_ok=True)
    body = ["import pytest\n"]
    for number, name, _, fn in RUBRIC:
        extra = ""
        if number == "3.1":
            extra = (
                "    r = bpe.ratio()\n"
                "    if r is not None:\n"
                '        record_property("figures", {"measure": "cpu_seconds", "ratio": r})\n'
            )
        body.append(
            f"\ndef {fn}(bpe, record_property):\n{extra}"
            f'    assert bpe.passes("{number}"), "{name}: expected something else"\n'
        )
    (tests / "test_class.py").write_text("".join(body))
    points = {**{n: p for n, _, p, _ in RUBRIC}, **(points or {})}
    shown = {**dict.fromkeys((n for n, _, _, _ in RUBRIC), "visible"), **(visibility or {})}
    rubric = root / "rubric.toml"
    head = f"total = {total}\n\n" if total is not None else ""
    rubric.write_text(
        head
        + "".join(
            f'[[test]]\nid = "test_class.py::{fn}"\nnumber = "{n}"\nname = "{name}"\npart = 1\n'
            f'points = {points[n]}\nvisibility = "{shown[n]}"\n\n'
            for n, name, _, fn in RUBRIC
        )
    )
    return tests, rubric


def submission_files(*, points=(), ratio=None, sleep=0.0, hang=None) -> dict[str, str]:
    """The fake package's files (path -> text); `points`: the numbers of the tests it passes."""
    spec = {"points": dict.fromkeys(points, 1), "sleep": sleep}
    if ratio is not None:
        spec["ratio"] = ratio
    if hang:
        spec["hang"] = hang
    return {"bpe/__init__.py": textwrap.dedent(SUBMISSION), "bpe/fake.json": json.dumps(spec)}


def make_submission(root: Path, student: str, *, points=(), ratio=None, sleep=0.0, hang=None, as_zip=False):
    """A fake submission folder (or zip) for `student` under `root`; `points`: the tests it passes."""
    import zipfile

    files = submission_files(points=points, ratio=ratio, sleep=sleep, hang=hang)
    root.mkdir(parents=True, exist_ok=True)
    if as_zip:
        with zipfile.ZipFile(root / f"{student}.zip", "w") as z:
            for name, text in files.items():
                z.writestr(name, text)
        return root / f"{student}.zip"
    for name, text in files.items():
        p = root / student / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root / student
