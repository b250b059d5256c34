"""The grader as a library: `grade()` one submission, get Gradescope's results.json as a dict.

    from grader.api import grade
    results = grade(Path("submissions/alice.zip"), Path("out/alice"))
    results["score"], results["tests"][0]["status"]

Stable interface (the batch tools build on it):
- `grade(submission, out_dir, request=None, *, tests=None, timeout_total=None, tests_dir=None,
  rubric=None, contract="kit", python=None) -> dict` (`request`: a `GradeRequest`, grader/request.py,
  for every option a grade takes; the keywords build one) writes out_dir/results.json and out_dir/junit.xml and returns the results.json dict.
  `tests` is a pytest -k expression selecting a subset, `part` a rubric part ("1", "2", "3", "E" or
  "efficiency"); then unselected rubric entries are left out and the report says it is partial.
  results["extra_data"] = {"isolation": an `Isolation` value (grader/sandbox/isolation.py),
  "max_score": N},
  plus "requires_python_ignored" (grader/sandbox/student_python.py `Mismatch`) when a CS336
  repository was graded under a Python its requires-python excludes, "kept_groups" (the grading user's other groups, which its workers keep under "userns"), "partial" (how the tests were picked) in a partial grade and "withheld_points" when the rubric
  leaves hidden tests to Gradescope (the handout's). A speed or memory gate's test entry carries
  its measurement as data: test["extra_data"]["figures"] (grader/checks/speed.py).
- Raises a `grader.errors.GraderError` (a one-line message) when grading could not run at all,
  unchanged from where it was found: `SubmissionError` for a missing or corrupt submission or no
  bpe/ package (the student's to fix), `RubricError`, `UnknownContract`, `PythonError` (`python` unusable), `SuiteError` (graded suite broken,
  `timeout_total` exceeded), `NothingSelected` (--tests or --part picks no graded test), `ReportError`.
  A submission that crashes, hangs or misbehaves is NOT an error: it is graded (and loses points).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import charges, contracts, grade_builder, report, rubric
from .errors import GraderError, NothingSelected, ReportError
from .i18n import N_, _
from .request import GradeRequest
from .sandbox.isolation import Isolation, kept_groups
from .sandbox.isolation import isolation_level as sandbox_isolation
from .sandbox.options import Options
from .scoring import Scored
from .suite import runner
from .suite.trusted import oracles_here

__all__ = ["GradeRequest", "GraderError", "Grading", "grade", "isolation_level", "run", "write"]


@dataclass
class Grading:
    results: dict
    scored: list[Scored]
    scope: report.Scope = field(default_factory=report.Scope)
    notes: tuple[str, ...] = ()  # shown with the grade: the contract's notes, and after a full pass what next
    records: list[dict] = field(default_factory=list)  # the suite's records it was built from (grade_builder)


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


def run(submission_path: Path, request: GradeRequest | None = None, **options) -> Grading:
    """Grade without writing anything (the CLI's `--inprocess` stops here), as `request` asks
    (grader/request.py; `options` replace some of its fields). The contract (grader/contracts.py)
    says how the submission is opened and what its rubric leaves out; the grade is built from the
    suite's records by grader/grade_builder.py."""
    request = replace(request or GradeRequest(), **options)
    started = time.monotonic()
    contract = contracts.resolve(request.contract, request.rubric_path)
    notes = contract.notes
    left_out = list(contract.left_out)
    entries = rubric.load(contract.rubric)
    withheld = rubric.withheld_points(contract.rubric)
    tests, part = request.tests, request.part
    chosen = select_part(entries, part) if part else entries
    partial = request.partial
    with contract.opened(Path(submission_path)) as (parent, repo):
        python, ignored = contract.worker_python(repo, request.python, request.ignore_requires_python)
        suite_request = replace(request, python=python)

        def grade_more(ids: list[str]) -> list[dict]:
            return runner.run_suite(
                parent, replace(suite_request, tests=None), node_ids=ids, deselect=contract.deselect
            )

        records = runner.run_suite(
            parent,
            suite_request,
            node_ids=[e.id for e in chosen] if part else None,
            deselect=contract.deselect,
        )
        built = grade_builder.build(
            entries,
            records,
            partial=partial,
            left_out=set(contract.deselect),
            grade_more=grade_more,
            allow_unlisted=request.allow_unlisted,
        )
        scored, more = built.scored, built.more
        if tests and not scored:
            raise NothingSelected(
                _("--tests {pattern} selects none of the graded tests").format(pattern=repr(tests))
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
    if ignored:
        notes = (*notes, ignored.said())
    if contract.name == contracts.CS336:
        full = _("`bpe-kit grade --contract cs336 {path}` (no --part or --tests)").format(
            path=submission_path
        )
        scope = replace(scope, full_grade=full)
    level = isolation_level(request.inprocess, request.isolation)
    results = report.results_json(scored, execution_time=elapsed, isolation=level, scope=scope)
    if ignored:
        results["extra_data"]["requires_python_ignored"] = ignored.data()
    if level == Isolation.USERNS and kept_groups():
        results["extra_data"]["kept_groups"] = kept_groups()
    if notes:
        results["output"] += "\n" + "\n".join(notes)
    step = report.next_step(scored, scope, contract.name)  # for the terminal only: Gradescope has it already
    return Grading(results, scored, scope, (*notes, step) if step else notes, built.records)


CONTRACTS = contracts.NAMES
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


def grade(
    submission: Path,
    out_dir: Path,
    request: GradeRequest | None = None,
    *,
    tests: str | None = None,
    timeout_total: float | None = None,
    tests_dir: Path | None = None,
    rubric: Path | None = None,
    contract: str = "kit",
    python: str | None = None,
) -> dict:
    """Grade one submission into out_dir (see module docstring); returns the results.json dict.
    `request` (grader/request.py) says all a grade may be asked; the keywords are its common fields."""
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{out_dir}: cannot create the report folder ({e.strerror or e})") from None
    request = request or GradeRequest(
        tests=tests,
        timeout_total=timeout_total,
        tests_dir=tests_dir,
        rubric_path=rubric,
        contract=contract,
        python=python,
    )
    grading = run(submission, replace(request, hide=(*request.hide, out_dir.resolve())))
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
