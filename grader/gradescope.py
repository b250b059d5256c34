"""The Gradescope runtime entry point: run_autograder runs `python -m grader.gradescope`, which finds
the student's `bpe` (`grader.intake`, as everywhere), grades it and writes results.json.

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

from grader import intake
from grader.errors import SubmissionError
from grader.farm.records import write_json_atomic

HOW_TO_SUBMIT = (
    "Upload your bpe folder itself (with its __init__.py), or a zip of it: "
    "`make submission` builds the right zip."
)


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
        submission = root / "submission"
        try:
            pkg_parent = intake.unpack(submission, scratch / "in", shown=submission.name)
            from grader.api import grade  # imported late: a broken grader still yields a results.json

            results = grade(pkg_parent, scratch / "out", timeout_total=float(timeout) if timeout else None)
        except SubmissionError as e:
            return failure(f"Your submission could not be graded: {e}. {HOW_TO_SUBMIT}", hidden_stdout=False)
    if not isinstance(results, dict) or not isinstance(results.get("score"), (int, float)):
        raise TypeError("grader.api.grade returned something that is not a results dict")
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.gradescope")
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
