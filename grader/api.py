"""The grader as a library: `grade()` one submission, get Gradescope's results.json as a dict.

    from grader.api import grade
    results = grade(Path("submissions/alice.zip"), Path("out/alice"))
    results["score"], results["tests"][0]["status"]

Stable interface (the batch tools build on it):
- `grade(submission, out_dir, *, tests=None, timeout_total=None, tests_dir=None, rubric=None) -> dict`
  writes out_dir/results.json and out_dir/junit.xml and returns the results.json dict.
  `tests` is a pytest -k expression selecting a subset (then unselected rubric entries are left out).
  results["extra_data"] = {"isolation": "namespaces+uid" | "uid" | "process-group", "max_score": N}.
- Raises a `grader.errors.GraderError` (a one-line message) when grading could not run at all,
  unchanged from where it was found: `SubmissionError` for a missing or corrupt submission or no
  bpe/ package (the student's to fix), `RubricError`, `SuiteError` (graded suite broken,
  `timeout_total` exceeded), `NothingSelected`, `ReportError`.
  A submission that crashes, hangs or misbehaves is NOT an error: it is graded (and loses points).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from . import intake, report, rubric
from .errors import GraderError, NothingSelected, ReportError
from .paths import DEFAULT_RUBRIC, DEFAULT_TESTS_DIR
from .sandbox.box import Options
from .sandbox.box import isolation_level as sandbox_isolation
from .scoring import Scored, score
from .suite import runner

__all__ = ["GraderError", "Grading", "grade", "isolation_level", "run", "write"]


@dataclass
class Grading:
    results: dict
    scored: list[Scored]


def isolation_level(inprocess: bool = False, isolation: str = "auto") -> str:
    """How workers are isolated here (recorded in results.json under extra_data)."""
    if inprocess:
        return "inprocess"
    options = Options.for_level(isolation)
    return sandbox_isolation(options.namespaces, options.unprivileged)


def run(
    submission_path: Path,
    *,
    tests: str | None = None,
    timeout_total: float | None = None,
    tests_dir: Path | None = None,
    rubric_path: Path | None = None,
    inprocess: bool = False,
    allow_unlisted: bool = False,
    hide: tuple[Path, ...] = (),
    isolation: str = "auto",
) -> Grading:
    """Grade without writing anything (the CLI's `--inprocess` stops here)."""
    started = time.monotonic()
    entries = rubric.load(rubric_path or DEFAULT_RUBRIC)
    with intake.opened(Path(submission_path)) as parent:
        records = runner.run_suite(
            parent,
            tests_dir=tests_dir or DEFAULT_TESTS_DIR,
            pattern=tests,
            inprocess=inprocess,
            timeout_total=timeout_total,
            hide=hide,
            isolation=isolation,
        )
    scored = score(entries, records, partial_run=bool(tests), allow_unlisted=allow_unlisted)
    if tests and not scored:
        raise NothingSelected(f"--tests {tests!r} selects none of the graded tests")
    elapsed = time.monotonic() - started
    results = report.results_json(
        scored, execution_time=elapsed, isolation=isolation_level(inprocess, isolation)
    )
    return Grading(results, scored)


def grade(
    submission: Path,
    out_dir: Path,
    *,
    tests: str | None = None,
    timeout_total: float | None = None,
    tests_dir: Path | None = None,
    rubric: Path | None = None,
) -> dict:
    """Grade one submission into out_dir (see module docstring); returns the results.json dict."""
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{out_dir}: cannot create the report folder ({e.strerror or e})") from None
    grading = run(
        submission,
        tests=tests,
        timeout_total=timeout_total,
        tests_dir=tests_dir,
        rubric_path=rubric,
        hide=(out_dir.resolve(),),
    )
    write(grading, Path(out_dir))
    return grading.results


def write(grading: Grading, out_dir: Path) -> None:
    """results.json and junit.xml into out_dir (created if needed)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        report.write_results(grading.results, out_dir)
        report.write_junit(grading.scored, out_dir, execution_time=grading.results["execution_time"])
    except (OSError, ValueError) as e:
        raise ReportError(
            f"{out_dir}: cannot write the reports ({getattr(e, 'strerror', None) or e})"
        ) from None
