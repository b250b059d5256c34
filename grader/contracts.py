"""Which contract a submission is graded under, resolved in one place: its rubric, the kit tests it
leaves out, the notes that go with its grades, and how a submission of it is opened.

"kit": a `bpe/` package (grader/intake.py), the kit's rubric. "cs336": a CS336 assignment-1
repository behind the `bpe` shim (grader/cs336/). The kit's handout ships the grader without
grader/cs336/, so that package is imported only when the cs336 contract is asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import intake
from .errors import UnknownContract
from .i18n import _
from .paths import DEFAULT_RUBRIC
from .sandbox import student_python
from .sandbox.student_python import Mismatch
from .scoring import Scored

KIT = "kit"
CS336 = "cs336"
NAMES = (KIT, CS336)


@dataclass(frozen=True)
class Contract:
    name: str
    rubric: Path
    left_out: tuple[Scored, ...] = ()  # one zero-point row per kit test it does not run, saying why
    notes: tuple[str, ...] = ()  # shown with every grade under it (in the report's language)

    @property
    def deselect(self) -> tuple[str, ...]:
        """The rubric ids of the tests it does not run."""
        return tuple(s.entry.id for s in self.left_out)

    @contextlib.contextmanager
    def opened(self, path: Path) -> Iterator[tuple[Path, Path | None]]:
        """(the folder holding `bpe/`, the CS336 repository or None) of a submission, for as long
        as the context lasts; SubmissionError when it cannot be opened."""
        if self.name == CS336:
            from .cs336 import intake as cs336_intake  # only here: the handout has no grader/cs336/

            with cs336_intake.opened(Path(path)) as staged:
                yield staged.parent, staged.repo
            return
        with intake.opened(Path(path)) as parent:
            yield parent, None

    def worker_python(
        self, repo: Path | None, given: str | None, ignore_requires_python: bool = False
    ) -> tuple[str | None, Mismatch | None]:
        """(the worker's interpreter, a `requires-python` it was let miss or None): `given`
        (`--python`), else a CS336 repository's own .venv's; PythonError when it is unusable or,
        unless `ignore_requires_python`, outside the repository's `requires-python`."""
        python = given
        if python is None and repo is not None:
            python = student_python.default_for(repo)
        python = student_python.checked(python) if python else None
        if self.name != CS336 or repo is None:
            return python, None
        from .cs336 import intake as cs336_intake  # only here: the handout has no grader/cs336/

        return python, cs336_intake.check_python(repo, python, ignore_requires_python)


def resolve(name: str, rubric: Path | None = None) -> Contract:
    """The contract `name`, graded with `rubric` (default: the contract's own); UnknownContract
    for any other name."""
    if name == KIT:
        return Contract(KIT, Path(rubric or DEFAULT_RUBRIC))
    if name == CS336:
        from .cs336 import contract as cs336  # only here: the handout has no grader/cs336/

        path = Path(rubric or cs336.RUBRIC)
        return Contract(CS336, path, tuple(cs336.not_in_contract(path)), tuple(cs336.notes(path)))
    raise UnknownContract(
        _("unknown contract {name} (one of {names})").format(name=repr(name), names=", ".join(NAMES))
    )
