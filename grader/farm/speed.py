"""Speed-gate ratios (time taken / calibrated budget), as each speed test recorded them.

A gate records its figures as data (grader/checks/speed.py `figures`), and results.json carries
them as the test's `extra_data.figures`; nothing is read back from the words of the feedback. A
stopped run's ratio is where it was stopped: a lower bound.
"""

from __future__ import annotations

from .gradebook import test_column


def ratio_of(test: dict) -> float | None:
    """The CPU-time ratio a results.json test entry recorded, or None (not a speed gate)."""
    figures = (test.get("extra_data") or {}).get("figures") or {}
    if figures.get("measure") != "cpu_seconds" or not isinstance(figures.get("ratio"), (int, float)):
        return None
    return float(figures["ratio"])


def verdict_of(test: dict) -> str:
    """'pass', 'borderline' or 'fail', as the gate recorded it (grader/checks/timing_rule.py); a
    record from before verdicts were recorded passed within its budget."""
    figures = (test.get("extra_data") or {}).get("figures") or {}
    recorded = figures.get("verdict")
    if recorded:
        return str(recorded)
    return "fail" if figures.get("stopped") or (ratio_of(test) or 0) > 1 else "pass"


def ratios(recs: dict[str, dict]) -> list[tuple[str, str, float, str]]:
    """(student, test column, ratio, verdict) for every speed gate of every graded student."""
    found = []
    for student in sorted(recs):
        for t in (recs[student].get("results") or {}).get("tests", []):
            value = ratio_of(t)
            if value is not None:
                found.append((student, test_column(t), value, verdict_of(t)))
    return found
