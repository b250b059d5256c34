"""An output as it reads today: its manifest with the kit, the rubric and the uploads as they are now.

A manifest records the fingerprint and the rubric of the kit that last graded in that output. After
the rubric or the grader changed, and even after it was changed back, that fingerprint is not
today's: a record that matches it may be stale, and one that does not may be current. So every
command that reads records (report, merge, finalize, release) judges them with `today`, which
recomputes the kit's fingerprint from the setup the output was graded with (`setup` in the
manifest: the graded tests folder, the rubric, the contract), reloads that rubric, and
re-fingerprints the uploads still in the submissions folder.
"""

from __future__ import annotations

from pathlib import Path

from .. import rubric
from ..errors import RosterError
from .fingerprint import kit_fingerprint
from .roster import discover
from .unpack import fingerprint


def rubric_table(entries: list[rubric.Entry]) -> list[dict]:
    """The rubric as the manifest and the gradebook carry it, in rubric order."""
    return [
        {"number": e.number, "name": e.name, "points": e.points, "part": e.part}
        for e in sorted(entries, key=lambda e: rubric.number_key(e.number))
    ]


def setup(tests_dir: Path, rubric_path: Path, contract: str) -> dict:
    """What the manifest records so that a later command can recompute today's kit."""
    return {
        "tests_dir": str(Path(tests_dir).resolve()),
        "rubric": str(Path(rubric_path).resolve()),
        "contract": contract,
    }


def kit_of(recorded: dict, where: Path) -> tuple[str, list[dict]]:
    """(today's kit fingerprint, today's rubric table) for an output graded with `recorded`."""
    tests_dir, rubric_path = Path(recorded["tests_dir"]), Path(recorded["rubric"])
    if not tests_dir.is_dir():
        raise RosterError(
            f"{where}: graded with the tests in {tests_dir}, which is gone: today's grades cannot be judged"
        )
    entries = rubric.load(rubric_path)  # a missing or broken rubric: RubricError, one line
    return kit_fingerprint(tests_dir, rubric_path, recorded.get("contract", "kit")), rubric_table(entries)


def uploads(manifest: dict) -> dict:
    """The roster and the upload fingerprints as the submissions folder holds them now: a student
    who uploaded since the last run is not graded yet, one who uploaded again is stale. An output
    whose folder is not here (a merged output, or one read on another machine) keeps what it
    recorded; so does a shard's list of its own students."""
    source = manifest.get("source")
    if not source or not Path(source).is_dir():
        return {}
    entries, _ = discover(Path(source))
    roster = [e.student for e in entries]
    view = {
        "roster": roster,
        "submissions": {
            **manifest.get("submissions", {}),
            **{e.student: fingerprint(e.path) for e in entries},
        },
    }
    if not manifest.get("shard"):
        view["assigned"] = roster
    return view


def today(out: Path, manifest: dict) -> dict:
    """`manifest` with the kit, the rubric and the uploads as they are today (the module docstring)."""
    recorded = manifest.get("setup")
    if not recorded:
        raise RosterError(
            f"{out}: written by an older farm that did not record its setup; rerun `farm grade` on it once"
        )
    kit, table = kit_of(recorded, out)
    return {**manifest, "kit": kit, "rubric": table, **uploads(manifest)}
