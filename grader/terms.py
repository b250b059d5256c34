"""The fixed words a grade is made of, as data: a test's status, a test's visibility, and the
shape of a failure's cause.

Each is spelled here once. The enums are `StrEnum`s: a member is its string, so results.json,
junit.xml and the farm's records hold the same text as before, and a status read back from JSON
compares equal to its member. What a status or a visibility says to a student is the report's
(grader/report.py) and the handout's (assignment/handout_words.py) business, not this module's.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypedDict


class Status(StrEnum):
    """A graded test's status (Scored.status; the suite's records hold the first five)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_IMPLEMENTED = "not implemented"  # the code raised NotImplementedError: the stub is still there
    SKIPPED = "skipped"  # scored as failed
    NOT_RUN = "not run"  # a rubric test the run did not reach (0 points)
    NOT_GRADED = "not graded"  # a module the test needs does not import (0 points, not a wrong answer)
    NOT_IN_CONTRACT = "not part of this contract"  # a kit test the chosen contract leaves out (0 of 0)
    SAME_CAUSE = "same cause"  # a failed test that a proven fault's cap leaves its points (grader/charges.py)


class Visibility(StrEnum):
    """Who sees a test's result on Gradescope, and when (the rubric's `visibility`)."""

    VISIBLE = "visible"
    HIDDEN = "hidden"  # the course staff only
    AFTER_DUE_DATE = "after_due_date"
    AFTER_PUBLISHED = "after_published"


VISIBILITIES = tuple(Visibility)  # for `in`: a rubric's visibility is read as a plain string
SHOWN_LATER = (Visibility.AFTER_DUE_DATE, Visibility.AFTER_PUBLISHED)


class Cause(TypedDict, total=False):
    """The fault a failed test is known to come from (Scored.cause), as the checks diagnose it and
    grader/charges.py charges it: failures with equal keys share one fault."""

    key: str  # one fault, one key: "tie-break", "raised KeyError at bpe/train.py:12", ...
    where: str  # where to fix it: a function's name, or path:line of the student's code
    summary: str  # one line for the student, in the report's language
    one_fault: bool  # proven to be this fault alone: a later test says "same cause" and is capped
    crash: bool  # the same exception at the same line of the student's code
    gate: bool  # a speed gate whose own measure passed: never charged for the fault
