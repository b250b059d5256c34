"""The grader as a library: `grade()` one submission, get Gradescope's results.json as a dict.

    from grader.api import grade
    results = grade(Path("submissions/alice.zip"), Path("out/alice"))
    results["score"], results["tests"][0]["status"]

Stable interface (the batch tools build on it):
- `grade(submission, out_dir, *, tests=None, timeout_total=None, tests_dir=None, rubric=None) -> dict`
  writes out_dir/results.json and out_dir/junit.xml and returns the results.json dict.
  `tests` is a pytest -k expression selecting a subset (then unselected rubric entries are left out).
  results["extra_data"] = {"isolation": "namespaces+uid" | "uid" | "process-group", "max_score": N}.
- Raises `GraderError` (a one-line message) when grading could not run at all: missing or corrupt
  submission, no bpe/ package, unusable rubric, graded suite broken, `timeout_total` exceeded.
  A submission that crashes, hangs or misbehaves is NOT an error: it is graded (and loses points).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from . import report, rubric, runner, student_python, submission
from .rubric import RubricError
from .sandbox import Options, SubmissionError
from .sandbox import isolation_level as sandbox_isolation
from .scoring import Scored, score

DEFAULT_RUBRIC = Path(__file__).resolve().parent / "rubric.toml"


class GraderError(Exception):
    """Grading could not run; str() is one line saying why."""


@dataclass
class Grading:
    results: dict
    scored: list[Scored]
    notes: tuple[str, ...] = ()  # the contract's notes, shown with the grade


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
    contract: str = "kit",
    python: str | None = None,
) -> Grading:
    """Grade without writing anything (the CLI's `--inprocess` stops here).

    `contract="cs336"`: the submission is a CS336 repository (grader/cs336/); `python`: the
    worker's interpreter (default for cs336: the repository's .venv/bin/python, when it exists)."""
    started = time.monotonic()
    if contract not in CONTRACTS:
        raise GraderError(f"unknown contract {contract!r} (one of {', '.join(CONTRACTS)})")
    left_out, notes = [], ()
    try:
        if contract == "cs336":  # imported here: the kit's handout leaves grader/cs336/ out
            from .cs336 import contract as cs336

            rubric_path = rubric_path or cs336.RUBRIC
            left_out, notes = cs336.not_in_contract(rubric_path), tuple(cs336.notes(rubric_path))
            opened = _cs336_opened(Path(submission_path))
        else:
            opened = _kit_opened(Path(submission_path))
        entries = rubric.load(rubric_path or DEFAULT_RUBRIC)
        with opened as (parent, repo):
            if python is None and repo is not None:
                python = student_python.default_for(repo)
            records = runner.run_suite(
                parent,
                tests_dir=tests_dir or runner.DEFAULT_TESTS_DIR,
                pattern=tests,
                inprocess=inprocess,
                timeout_total=timeout_total,
                hide=hide,
                isolation=isolation,
                contract=contract,
                python=student_python.checked(python) if python else None,
                deselect=tuple(s.entry.id for s in left_out),
            )
        scored = score(entries, records, partial_run=bool(tests), allow_unlisted=allow_unlisted)
        if tests and not scored:
            raise GraderError(f"--tests {tests!r} selects none of the graded tests")
        if not tests:
            scored = sorted(scored + left_out, key=lambda s: rubric.number_key(s.entry.number))
    except (SubmissionError, RubricError, runner.SuiteError, student_python.PythonError) as e:
        raise GraderError(str(e)) from None
    elapsed = time.monotonic() - started
    results = report.results_json(
        scored, execution_time=elapsed, isolation=isolation_level(inprocess, isolation)
    )
    if notes:
        results["output"] += "\n" + "\n".join(notes)
    return Grading(results, scored, notes)


CONTRACTS = ("kit", "cs336")


@contextlib.contextmanager
def _kit_opened(path: Path):
    with submission.opened(path) as parent:
        yield parent, None


@contextlib.contextmanager
def _cs336_opened(path: Path):
    from .cs336 import intake

    with intake.opened(path) as staged:
        yield staged.parent, staged.repo


def grade(
    submission: Path,
    out_dir: Path,
    *,
    tests: str | None = None,
    timeout_total: float | None = None,
    tests_dir: Path | None = None,
    rubric: Path | None = None,
    contract: str = "kit",
    python: str | None = None,
) -> dict:
    """Grade one submission into out_dir (see module docstring); returns the results.json dict."""
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise GraderError(f"{out_dir}: cannot create the report folder ({e.strerror or e})") from None
    grading = run(
        submission,
        tests=tests,
        timeout_total=timeout_total,
        tests_dir=tests_dir,
        rubric_path=rubric,
        hide=(out_dir.resolve(),),
        contract=contract,
        python=python,
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
        raise GraderError(
            f"{out_dir}: cannot write the reports ({getattr(e, 'strerror', None) or e})"
        ) from None
