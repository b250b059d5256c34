"""Cosmic Ray's test command: grade one mutated copy of the reference with the real grader.

    python tests/mutation/grade_mutant.py SUBMISSION --part 2 [--part 3]

Exit 0 when every Part given keeps its full score (the mutant survived), 1 at the first Part that
loses points (killed), 3 when the grader wrote no results.json (neither: run.py counts it apart).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
NO_GRADE = "grade_mutant: no grade"  # run.py reads this line: the grader, not the mutant, failed


def grade_part(submission: Path, part: str) -> tuple[int, int] | None:
    """(score, the Part's maximum), or None when the grader wrote no results."""
    with tempfile.TemporaryDirectory(prefix="mutant-grade-") as out:
        subprocess.run(
            [sys.executable, "-m", "grader", "grade", str(submission), "--out", out, "--part", part],
            cwd=KIT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        try:
            results = json.loads((Path(out) / "results.json").read_text())
            return results["score"], results["extra_data"]["max_score"]
        except (OSError, ValueError, KeyError):
            return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", type=Path)
    parser.add_argument("--part", action="append", required=True)
    args = parser.parse_args(argv)
    for part in args.part:
        graded = grade_part(args.submission, part)
        if graded is None:
            print(f"{NO_GRADE} for Part {part}")
            return 3
        score, top = graded
        print(f"Part {part}: {score} / {top}")
        if score < top:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
