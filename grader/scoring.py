"""From per-test records (grader/suite/outcome.py) and the rubric to scored, numbered results."""

from __future__ import annotations

from dataclasses import dataclass, field

from .charges import charge
from .errors import RubricError
from .i18n import _
from .rubric import Entry, number_key
from .terms import Cause, Status


@dataclass
class Scored:
    entry: Entry
    status: str  # a Status (grader/terms.py); read back from a record, its string
    score: float
    feedback: str
    output: str
    duration: float
    figures: dict = field(default_factory=dict)  # what a gate measured (grader/checks/speed.py)
    # Status.NOT_GRADED: the module that does not import (errors.ModuleDoesNotImport.data)
    not_imported: dict | None = None
    cause: Cause = field(default_factory=dict)  # the diagnosed fault of a failure (grader/checks/diagnose.py)
    # The submission's import as its workers measured it: {"cpu_s", "limit_s"} (no test's time)
    imported: dict = field(default_factory=dict)
    same_as: str | None = None  # the number of the earlier test that names the same cause (grader/charges.py)


def score(
    entries: list[Entry], records: list[dict], *, partial_run: bool = False, allow_unlisted: bool = False
) -> list[Scored]:
    """All-or-nothing points per rubric entry (every case of a parametrized test must pass), then
    one charge per cause (grader/charges.py).

    A collected test missing from the rubric is an error (the rubric must say what it is worth);
    an entry whose test did not run scores 0, except in a partial run (`--tests`), where it is left
    out."""
    unlisted = [r["nodeid"] for r in records if not any(e.covers(r["nodeid"]) for e in entries)]
    if unlisted and not allow_unlisted:
        raise RubricError(
            f"the rubric has no entry for {unlisted[0]}"
            + (f" (and {len(unlisted) - 1} more)" if len(unlisted) > 1 else "")
        )
    results = []
    for entry in sorted(entries, key=lambda e: number_key(e.number)):
        mine = [r for r in records if entry.covers(r["nodeid"])]
        if not mine:
            if not partial_run:
                results.append(Scored(entry, Status.NOT_RUN, 0, _("This test did not run."), "", 0.0))
            continue
        bad = [r for r in mine if r["status"] != Status.PASSED]
        duration = sum(r["duration"] for r in mine)
        output = "".join(r["output"] for r in mine)
        figures = next((r["figures"] for r in mine if r.get("figures")), {})
        if not bad:
            notes = "\n".join(r["feedback"] for r in mine if r["feedback"])
            results.append(Scored(entry, Status.PASSED, entry.points, notes, output, duration, figures))
            continue
        first = bad[0]
        feedback = first["feedback"]
        if first["status"] == Status.NOT_GRADED:
            results.append(
                Scored(
                    entry,
                    Status.NOT_GRADED,
                    0,
                    feedback,
                    output,
                    duration,
                    figures,
                    not_imported=first.get("not_imported"),
                )
            )
            continue
        if len(mine) > 1:
            case = first["nodeid"][len(entry.id) :]
            said = _("{failed} of {cases} cases failed; first: {case}").format(
                failed=len(bad), cases=len(mine), case=case
            )
            feedback = f"{said}\n{feedback}"
        unwritten = all(r["status"] == Status.NOT_IMPLEMENTED for r in bad)
        status = Status.NOT_IMPLEMENTED if unwritten else first["status"]
        if status == Status.SKIPPED:
            status = Status.FAILED
        cause = first.get("cause") or {}
        results.append(Scored(entry, status, 0, feedback, output, duration, figures, cause=cause))
    for s in results:
        imports = [r["import"] for r in records if s.entry.covers(r["nodeid"]) and r.get("import")]
        s.imported = max(imports, key=lambda x: x.get("cpu_s", 0), default={})
    return charge(results)
