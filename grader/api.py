"""The grader as a library: `grade()` one submission, get Gradescope's results.json as a dict.

    from grader.api import grade
    results = grade(Path("submissions/alice.zip"), Path("out/alice"))
    results["score"], results["tests"][0]["status"]

Stable interface (the batch tools build on it):
- `grade(submission, out_dir, *, tests=None, timeout_total=None, tests_dir=None, rubric=None,
  contract="kit", python=None) -> dict` writes out_dir/results.json and out_dir/junit.xml and returns the results.json dict.
  `tests` is a pytest -k expression selecting a subset, `part` a rubric part ("1", "2", "3", "E" or
  "efficiency"); then unselected rubric entries are left out and the report says it is partial.
  results["extra_data"] = {"isolation": an `Isolation` value (grader/sandbox/isolation.py),
  "max_score": N},
  plus "kept_groups" (the grading user's other groups, which its workers keep under "userns"), "partial" (how the tests were picked) in a partial grade and "withheld_points" when the rubric
  leaves hidden tests to Gradescope (the handout's). A speed or memory gate's test entry carries
  its measurement as data: test["extra_data"]["figures"] (grader/checks/speed.py).
- Raises a `grader.errors.GraderError` (a one-line message) when grading could not run at all,
  unchanged from where it was found: `SubmissionError` for a missing or corrupt submission or no
  bpe/ package (the student's to fix), `RubricError`, `PythonError` (`python` unusable), `SuiteError` (graded suite broken,
  `timeout_total` exceeded), `NothingSelected` (--tests or --part picks no graded test), `ReportError`.
  A submission that crashes, hangs or misbehaves is NOT an error: it is graded (and loses points).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import charges, intake, report, rubric
from .checks import oracles_here
from .errors import GraderError, NothingSelected, ReportError
from .i18n import N_, _
from .partial import charged_as_in_full
from .paths import DEFAULT_RUBRIC, DEFAULT_TESTS_DIR
from .sandbox import student_python
from .sandbox.box import Options, kept_groups
from .sandbox.box import isolation_level as sandbox_isolation
from .sandbox.isolation import Isolation
from .scoring import Scored, score
from .suite import runner

__all__ = ["GraderError", "Grading", "grade", "isolation_level", "run", "write"]


@dataclass
class Grading:
    results: dict
    scored: list[Scored]
    scope: report.Scope = field(default_factory=report.Scope)
    notes: tuple[str, ...] = ()  # shown with the grade: the contract's notes, and after a full pass what next


def isolation_level(inprocess: bool = False, isolation: str = "auto") -> Isolation:
    """How workers are isolated here (recorded in results.json under extra_data)."""
    if inprocess:
        return Isolation.INPROCESS
    options = Options.for_level(isolation)
    return sandbox_isolation(options.namespaces, options.unprivileged)


def select_part(entries: list[rubric.Entry], part: str) -> list[rubric.Entry]:
    """The rubric entries of one part; `part` as a student types it ("2", "E", "efficiency")."""
    want = {"e": "efficiency", "4": "efficiency"}.get(part.strip().lower(), part.strip().lower())
    chosen = [e for e in entries if str(e.part) == want]
    if not chosen:
        names = ", ".join(dict.fromkeys(str(e.part) for e in entries))
        raise NothingSelected(
            _("--part {part}: no graded test belongs to it (parts: {names})").format(
                part=repr(part), names=names
            )
        )
    return chosen


def describe_selection(tests: str | None, part: str | None, entries: list[rubric.Entry]) -> str | None:
    """How a partial grade picked its tests, in the report's words; None for a full grade."""
    said = []
    if part:
        p = entries[0].part if entries else part
        said.append(
            _("the efficiency tests") if p == "efficiency" else _("the tests of Part {part}").format(part=p)
        )
    if tests:
        said.append(_("the tests matching {pattern}").format(pattern=repr(tests)))
    if len(said) == 2:
        return _("{first} and {second}").format(first=said[0], second=said[1])
    return said[0] if said else None


def run(
    submission_path: Path,
    *,
    tests: str | None = None,
    part: str | None = None,
    timeout_total: float | None = None,
    tests_dir: Path | None = None,
    rubric_path: Path | None = None,
    inprocess: bool = False,
    allow_unlisted: bool = False,
    hide: tuple[Path, ...] = (),
    isolation: str = "auto",
    contract: str = "kit",
    python: str | None = None,
    jobs: int = 1,
) -> Grading:
    """Grade without writing anything (the CLI's `--inprocess` stops here). `jobs`: the pytest
    processes its tests may run in at once (grader/suite/runner.py, `shards`).

    `contract="cs336"`: the submission is a CS336 repository (grader/cs336/); `python`: the
    worker's interpreter (default for cs336: the repository's .venv/bin/python, when it exists)."""
    started = time.monotonic()
    if contract not in CONTRACTS:
        raise GraderError(f"unknown contract {contract!r} (one of {', '.join(CONTRACTS)})")
    left_out, notes = [], ()
    if contract == "cs336":  # imported here: the kit's handout leaves grader/cs336/ out
        from .cs336 import contract as cs336

        rubric_path = rubric_path or cs336.RUBRIC
        left_out, notes = cs336.not_in_contract(rubric_path), tuple(cs336.notes(rubric_path))
        opened = _cs336_opened(Path(submission_path))
    else:
        opened = _kit_opened(Path(submission_path))
    rubric_file = rubric_path or DEFAULT_RUBRIC
    entries = rubric.load(rubric_file)
    withheld = rubric.withheld_points(rubric_file)
    chosen = select_part(entries, part) if part else entries
    with opened as (parent, repo):
        if python is None and repo is not None:
            python = student_python.default_for(repo)
        python = student_python.checked(python) if python else None
        if contract == "cs336":
            from .cs336 import intake as cs336_intake

            cs336_intake.check_python(repo, python)

        def suite(pattern: str | None, node_ids: list[str] | None) -> list[dict]:
            return runner.run_suite(
                parent,
                tests_dir=tests_dir or DEFAULT_TESTS_DIR,
                pattern=pattern,
                node_ids=node_ids,
                inprocess=inprocess,
                timeout_total=timeout_total,
                hide=hide,
                isolation=isolation,
                contract=contract,
                python=python,
                deselect=tuple(s.entry.id for s in left_out),
                jobs=jobs,
            )

        records = suite(tests, [e.id for e in chosen] if part else None)
        partial = bool(tests or part)
        scored = score(chosen, records, partial_run=partial, allow_unlisted=allow_unlisted)
        if tests and not scored:
            raise NothingSelected(
                _("--tests {pattern} selects none of the graded tests").format(pattern=repr(tests))
            )
        more = 0
        if partial:
            scored, more = charged_as_in_full(
                scored,
                records,
                entries,
                {s.entry.id for s in left_out},
                lambda ids: suite(None, ids),
                allow_unlisted,
            )
    if more:
        notes = (*notes, _(CHARGED_AS_IN_FULL).format(n=more))
    if charges.capped_elsewhere(scored, oracles_here()):
        notes = (*notes, _(NOT_PROVEN_HERE).format(cap=charges.CAP))
    if not tests:  # the left-out tests are reported (of the chosen part, with --part)
        parts = {str(e.part) for e in chosen}
        scored += [s for s in left_out if str(s.entry.part) in parts or not part]
        scored.sort(key=lambda s: rubric.number_key(s.entry.number))
    elapsed = time.monotonic() - started
    scope = report.Scope(
        selection=describe_selection(tests, part, chosen) if partial else None,
        total_points=sum(e.points for e in entries),
        withheld=withheld,
    )
    if contract == "cs336":
        full = _("`bpe-kit grade --contract cs336 {path}` (no --part or --tests)").format(
            path=submission_path
        )
        scope = replace(scope, full_grade=full)
    level = isolation_level(inprocess, isolation)
    results = report.results_json(scored, execution_time=elapsed, isolation=level, scope=scope)
    if level == Isolation.USERNS and kept_groups():
        results["extra_data"]["kept_groups"] = kept_groups()
    if notes:
        results["output"] += "\n" + "\n".join(notes)
    step = report.next_step(scored, scope, contract)  # for the terminal only: Gradescope has it already
    return Grading(results, scored, scope, (*notes, step) if step else notes)


CONTRACTS = ("kit", "cs336")
NOT_PROVEN_HERE = N_(
    "This copy of the grader holds no reference to prove that one fault alone fails several tests, "
    "so here a fault is charged on each test it fails. The course's grader proves it, and charges "
    'such a fault at most {cap} points (the handout\'s "One fault, several tests"): your final '
    "grade may be higher than this one."
)
CHARGED_AS_IN_FULL = N_(
    "A fault proven here fails other tests too: the {n} earlier test(s) of the rubric that this "
    "partial grade leaves out were graded as well (not shown), so that the fault is charged on the "
    "tests where a full grade charges it."
)


@contextlib.contextmanager
def _kit_opened(path: Path):
    with intake.opened(path) as parent:
        yield parent, None


@contextlib.contextmanager
def _cs336_opened(path: Path):
    from .cs336 import intake as cs336_intake

    with cs336_intake.opened(path) as staged:
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
        raise ReportError(f"{out_dir}: cannot create the report folder ({e.strerror or e})") from None
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
        raise ReportError(
            f"{out_dir}: cannot write the reports ({getattr(e, 'strerror', None) or e})"
        ) from None
