"""Speed-gate ratios (time taken / calibrated budget), read back from each speed test's feedback.

The gates (grader/checks/speed.py, budgets from grader/calibration.py) say it in words, and these
are the phrasings relied on:
    "... took 0.35 s of CPU time: 0.16x the budget of 2.22 s (...)"          -> 0.16
    "... was stopped after 3.33 s of CPU time: more than 1.5x its time budget of 2.22 s"
                                                                              -> 1.5 (a lower bound)
    "ratio to budget: 0.42"                                                  -> 0.42
"""

from __future__ import annotations

import re

_NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
PATTERNS = [
    re.compile(_NUMBER + r"x the budget of"),
    re.compile(r"more than " + _NUMBER + r"x its time budget"),
    re.compile(r"ratio to budget:\s*" + _NUMBER),
]


def ratios_in(text: str) -> list[float]:
    found = []
    for pattern in PATTERNS:
        found += [float(m.group(1)) for m in pattern.finditer(text)]
    return found


def ratios(recs: dict[str, dict]) -> list[tuple[str, str, float]]:
    """(student, test column, ratio) for every ratio stated in every graded student's test output."""
    from .gradebook import test_column

    found = []
    for student in sorted(recs):
        for t in (recs[student].get("results") or {}).get("tests", []):
            for value in ratios_in(str(t.get("output") or "")):
                found.append((student, test_column(t), value))
    return found
