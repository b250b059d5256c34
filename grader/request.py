"""What a grade is asked to do, as one value: built once (by the CLI, the farm, a caller of
grader.api) and handed down to everything that grades, so that every layer reads the same options.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .paths import DEFAULT_TESTS_DIR


@dataclass(frozen=True)
class GradeRequest:
    tests: str | None = None  # a pytest -k expression: a partial grade of the tests it selects
    part: str | None = None  # a rubric part ("1", "2", "3", "E"): a partial grade of its tests
    timeout_total: float | None = None  # seconds the whole grade may take (None: no limit)
    tests_dir: Path = DEFAULT_TESTS_DIR  # the graded suite
    rubric_path: Path | None = None  # None: the contract's rubric (grader/contracts.py)
    inprocess: bool = False  # debugging: the submission imported into the suite's process
    allow_unlisted: bool = False  # a collected test missing from the rubric is not an error
    hide: tuple[Path, ...] = ()  # folders the workers must not see (the report folder...)
    isolation: str = "auto"  # grader/sandbox/isolation.py LEVELS
    fresh_workers: bool = False  # a fresh worker per test, never forked from one import (forked.py)
    contract: str = "kit"  # grader/contracts.py NAMES
    python: str | None = None  # the worker's interpreter (None: the grader's, or a CS336 repo's venv)
    # Grade under `python` even when a CS336 repository's requires-python excludes it (recorded).
    ignore_requires_python: bool = False
    jobs: int = 1  # pytest processes a grade's tests may run in at once (grader/suite/runner.py)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tests_dir", Path(self.tests_dir or DEFAULT_TESTS_DIR))  # None: the default

    @property
    def partial(self) -> bool:
        """Whether only some of the rubric's tests are asked for."""
        return bool(self.tests or self.part)
