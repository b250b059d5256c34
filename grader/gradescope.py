"""What run_autograder runs on Gradescope: find the student's `bpe`, grade it, write results.json.

Every path out of here leaves a results.json: the grade; or score 0 with a message telling the
student how to resubmit (no bpe package found); or score 0 saying the grader failed, with the
details in the hidden stdout for staff. Student code itself only ever runs in the grader's sandbox.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

from grader.farm.records import write_json_atomic
from grader.farm.unpack import Unreadable, prepare
from grader.farm.worker import refused_submission

HOW_TO_SUBMIT = (
    "Upload your bpe folder itself (with its __init__.py), or a zip of it: "
    "`make submission` builds the right zip."
)


def locate(submission: Path, scratch: Path) -> Path:
    """The directory holding `bpe/`: as uploaded, or inside the one zip that was uploaded whole."""
    try:
        return prepare(submission, scratch / "dir")
    except Unreadable:
        zips = (
            sorted(p for p in submission.iterdir() if p.is_file() and p.suffix.lower() == ".zip")
            if submission.is_dir()
            else []
        )
        if len(zips) != 1:
            raise
        (scratch / "zip").mkdir()
        return prepare(zips[0], scratch / "zip")


def failure(message: str, *, hidden_stdout: bool) -> dict:
    return {
        "score": 0.0,
        "tests": [],
        "output": message,
        "stdout_visibility": "hidden" if hidden_stdout else "visible",
    }


def run(root: Path) -> dict:
    timeout = os.environ.get("BPE_TIMEOUT_TOTAL")
    with tempfile.TemporaryDirectory(prefix="bpe-autograder-") as tmp:
        scratch = Path(tmp)
        (scratch / "dir").mkdir()
        try:
            pkg_parent = locate(root / "submission", scratch)
        except Unreadable as e:
            return failure(f"Your submission could not be graded: {e}. {HOW_TO_SUBMIT}", hidden_stdout=False)
        from grader.api import grade  # imported late: a broken grader still yields a results.json

        try:
            results = grade(pkg_parent, scratch / "out", timeout_total=float(timeout) if timeout else None)
        except Exception as e:
            if not refused_submission(e):
                raise
            return failure(f"Your submission could not be graded: {e}. {HOW_TO_SUBMIT}", hidden_stdout=False)
    if not isinstance(results, dict) or not isinstance(results.get("score"), (int, float)):
        raise TypeError("grader.api.grade returned something that is not a results dict")
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.release.autograder")
    ap.add_argument("--root", type=Path, default=Path("/autograder"))
    args = ap.parse_args(argv)
    dest = args.root / "results" / "results.json"
    try:
        results = run(args.root)
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        results = failure(
            "The autograder could not grade this submission because of a problem on our "
            "side, not in your code. Your score is 0 for now; the course staff have been "
            "notified and will regrade it.",
            hidden_stdout=True,
        )
    write_json_atomic(dest, results)
    print(json.dumps({"score": results["score"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
