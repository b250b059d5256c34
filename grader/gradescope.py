"""The Gradescope runtime entry point: run_autograder runs `python -m grader.gradescope`, which finds
the student's `bpe` (`grader.intake`, as everywhere), grades it and writes results.json.

Every path out of here leaves a results.json: the grade; or score 0 with a message telling the
student how to resubmit (no bpe package found); or score 0 saying the grader failed, with the
details in the hidden stdout for staff. Student code itself only ever runs in the grader's sandbox.

Hidden results stay hidden until released. Gradescope's specification gives each test a
`visibility` (hidden, after_due_date, after_published, visible) and results.json a top-level one,
which governs the submission's total score: the total adds up every test, so while any test that
carries points is not visible, the total takes the visibility of the last of them to be released,
and the `output` text speaks of the visible tests only (their points, their not-implemented count).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

from grader import i18n, intake
from grader.atomic import write_json_atomic
from grader.errors import SubmissionError
from grader.i18n import N_, _
from grader.terms import Visibility

HOW_TO_SUBMIT = N_(
    "Upload your bpe folder itself (with its __init__.py), or a zip of it: "
    "`make submission` builds the right zip."
)


# From the least to the most withheld: the total takes the most withheld of its tests' visibilities.
_RELEASE_ORDER = (
    Visibility.VISIBLE,
    Visibility.AFTER_DUE_DATE,
    Visibility.AFTER_PUBLISHED,
    Visibility.HIDDEN,
)
_WHEN = {
    Visibility.AFTER_DUE_DATE: N_(
        "{points} more points are in tests whose results are shown after the due date."
    ),
    Visibility.AFTER_PUBLISHED: N_(
        "{points} more points are in tests whose results are shown when grades are published."
    ),
    Visibility.HIDDEN: N_(
        "{points} more points are in tests whose results are shown by the course staff only."
    ),
}


def _points(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(float(x), 4)


def withhold_hidden(results: dict) -> dict:
    """results.json in which nothing visible lets a student infer a result not yet released."""
    tests = results.get("tests", [])
    withheld = [
        t
        for t in tests
        if t.get("visibility", Visibility.VISIBLE) != Visibility.VISIBLE and t.get("max_score", 0)
    ]
    visible = [t for t in tests if t.get("visibility", Visibility.VISIBLE) == Visibility.VISIBLE]
    got = sum(float(t.get("score", 0)) for t in visible)
    out = _("Visible tests: {got} / {maximum}.").format(
        got=_points(got), maximum=_points(sum(float(t.get("max_score", 0)) for t in visible))
    )
    stub = _("Not implemented yet: {what}").format(what="")  # how a stub's feedback starts (outcome.py)
    not_impl = sum(str(t.get("output", "")).startswith(stub) for t in visible)
    if not_impl:
        out = i18n.sentences(
            out, _("{count} visible test(s) reach code that is not implemented yet.").format(count=not_impl)
        )
    results = dict(results, output=out)
    if withheld:
        strictest = max((t["visibility"] for t in withheld), key=_RELEASE_ORDER.index)
        results["visibility"] = strictest
        for vis in _RELEASE_ORDER[1:]:
            pts = sum(float(t["max_score"]) for t in withheld if t["visibility"] == vis)
            if pts:
                results["output"] = i18n.sentences(
                    results["output"], _(_WHEN[vis]).format(points=_points(pts))
                )
    return results


def failure(message: str, *, hidden_stdout: bool) -> dict:
    return {
        "score": 0.0,
        "tests": [],
        "output": message,
        "stdout_visibility": Visibility.HIDDEN if hidden_stdout else Visibility.VISIBLE,
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
            said = _("Your submission could not be graded: {error}.").format(error=e)
            return failure(i18n.sentences(said, _(HOW_TO_SUBMIT)), hidden_stdout=False)
    if not isinstance(results, dict) or not isinstance(results.get("score"), (int, float)):
        raise TypeError("grader.api.grade returned something that is not a results dict")
    return withhold_hidden(results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.gradescope")
    ap.add_argument("--root", type=Path, default=Path("/autograder"))
    ap.add_argument(
        "--lang",
        type=i18n.argument,
        default=i18n.ENGLISH,
        help="the language of the grade (the release's setting: bpe-kit release gradescope --lang)",
    )
    args = ap.parse_args(argv)
    i18n.use(args.lang)
    dest = args.root / "results" / "results.json"
    try:
        results = run(args.root)
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        results = failure(
            _(
                "The autograder could not grade this submission because of a problem on our side, "
                "not in your code, so your score is 0 for now. Nobody is told automatically: please "
                "let the course staff know, or submit again later. The details are in the "
                "autograder log of this submission, which only the staff can see."
            ),
            hidden_stdout=True,
        )
    write_json_atomic(dest, results)
    print(json.dumps({"score": results["score"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
