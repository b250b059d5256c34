"""Pytest plugin for the graded suite: provides the `bpe` fixture and records how each test ended.

Two modes, one fixture shape (see grader/sandbox/kit.py and the `bpe.kit` namespace):
- sandboxed (the default, the only mode that grades): `bpe` is a proxy to a worker process that
  alone imports the submission (grader/sandbox/proxy.py). Every test gets a fresh worker, so nothing one
  test does can leak into the next; remote objects therefore live for one test only;
- `--inprocess`: `bpe` is the real module plus an in-process `bpe.kit` shim, for debugging.

With `--grader-results FILE` the plugin writes one record per test (grader/suite/outcome.py) for the
runner, which maps them through the rubric.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

from .. import contracts, i18n, measured
from ..budgets import MAX_CHILDREN
from ..calibration import per_test_limits
from ..errors import GradingAbort, SubmissionError
from ..sandbox.inprocess import InprocessBpe
from ..sandbox.isolation import LEVELS
from ..sandbox.options import Options
from ..sandbox.per_test import TestLimits
from ..sandbox.proxy import RemoteBpe
from ..sandbox.session import Session
from . import outcome, trusted

if TYPE_CHECKING:
    from collections.abc import Generator, Iterator

    import pluggy

    from ..budgets import PerTestLimits
    from ..sandbox.kit import Bpe

_SESSION = pytest.StashKey[object]()
_RECORDS = pytest.StashKey[list]()
_OUTPUT = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("bpe-kit grader")
    group.addoption("--submission", default="solution", help="directory that contains the bpe package")
    group.addoption(
        "--inprocess",
        action="store_true",
        help="import the submission into this process (debugging only; never a grade)",
    )
    group.addoption("--grader-results", default=None, help="write per-test records (JSON) here")
    group.addoption(
        "--grader-journal",
        default=None,
        help="append each test's start and records here as they happen (JSON lines), for a run stopped early",
    )
    group.addoption(
        "--worker-isolation",
        choices=LEVELS,
        default="auto",
        help="weaker isolation than the best available (to test the fallbacks)",
    )
    group.addoption(
        "--contract",
        choices=contracts.NAMES,
        default="kit",
        help="whose rules the tests apply (see grader/cs336/); the tests read it as bpe.kit.contract",
    )
    group.addoption("--worker-python", default=None, help="the student's interpreter for the worker")
    group.addoption(
        "--worker-fresh",
        action="store_true",
        help="a fresh worker per test, never forked from one that imported the submission",
    )
    group.addoption(
        "--grader-lang",
        type=i18n.argument,
        default=i18n.ENGLISH,
        help="the language of the feedback the tests write (grader/i18n.py)",
    )
    group.addoption(
        "--grader-test-times",
        default=None,
        help="write each test's CPU seconds in the submission's code here (JSON), for the fixtures",
    )
    group.addoption(
        "--grader-no-test-limits",
        action="store_true",
        help="only the wall-clock timeouts, no per-test CPU limits (when recording the reference's times)",
    )
    group.addoption(
        "--worker-hide",
        action="append",
        default=[],
        help="a folder workers must not see (the report folder); repeatable",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RECORDS] = []
    i18n.use(config.getoption("--grader-lang"))
    # Hypothesis keeps the Unicode tables its character strategies need (computed from unicodedata,
    # a quarter of a second) in its storage folder, by default `.hypothesis` in this grade's fresh
    # folder: so every grade computed them again. A run that shares one measurement of the machine
    # (a grade's two processes, a farm, the kit's tests) shares the tables beside it. They hold
    # nothing of a submission (no example database: conftest.py), and give the same examples.
    run_file = measured.run_file()
    if run_file is not None:
        set_hypothesis_home_dir(run_file.parent / "hypothesis")


def _journal(config: pytest.Config, entry: dict) -> None:
    path = config.getoption("--grader-journal")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _journal(item.config, {"start": item.nodeid})


@pytest.fixture(scope="session")
def bpe(request: pytest.FixtureRequest) -> Iterator[Bpe]:
    """The student's `bpe` package, shaped like the module, with the trusted helpers in `bpe.kit`."""
    config = request.config
    parent = Path(config.getoption("--submission")).resolve()
    session = None
    if config.getoption("--inprocess"):
        proxy = InprocessBpe(parent)
        proxy.kit.contract = config.getoption("--contract")
        proxy.kit.oracles = trusted.oracles()
    else:
        options = Options.for_level(
            config.getoption("--worker-isolation"),
            hide=tuple(Path(p) for p in config.getoption("--worker-hide")),
            python=config.getoption("--worker-python"),
            fork=not config.getoption("--worker-fresh"),
        )
        output = ""
        try:
            session = Session(parent, options)
            limits = config.stash.get(_LIMITS, None)
            if limits is not None:
                session.import_cpu_limit = limits.import_seconds()
            try:
                session.current()  # a sandbox that cannot start is the grader's problem: stop
            except BaseException:
                output = session.close().strip()
                raise
        except (OSError, SubmissionError, GradingAbort) as e:
            pytest.exit(f"the sandbox cannot start a worker: {e} {output[-300:]}".strip(), returncode=3)
        proxy = RemoteBpe(session)
        proxy.kit.contract = config.getoption("--contract")
        proxy.kit.oracles = trusted.oracles()
    config.stash[_SESSION] = session
    if session is not None:
        session.prepare()  # the first test's worker imports the submission before the test starts
    yield proxy
    config.stash[_SESSION] = None
    proxy.kit.close()


def _session(item: pytest.Item):
    """The sandbox session serving the tests (None in-process: there are no workers to manage)."""
    return item.config.stash.get(_SESSION, None)


def _test_timeout(item: pytest.Item) -> float | None:
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        return float(marker.args[0])
    try:
        value = item.config.getini("timeout")
    except ValueError:
        value = None
    return float(value) if value else None


TIMEOUT_GRACE = 5.0
_TEST_LIMITS = pytest.StashKey[TestLimits]()  # handed to the sandbox as the test starts
_TIMES = pytest.StashKey[dict]()
_LIMITS = pytest.StashKey[object]()  # budgets.PerTestLimits, when the tests have CPU limits


def times_key(item: pytest.Item) -> str:
    """`test_part2.py::test_x[param]`: a graded test as the per-test times fixture names it."""
    return f"{Path(str(item.path)).name}::{item.name}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The worker's deadline is the test's timeout; pytest-timeout gets a few seconds more, as a
    backstop, so a slow submission is reported as such rather than as a pytest-timeout. Each test
    also gets its CPU-time limit, derived from the reference's time for it (grader/calibration.py):
    a call that loops for ever is stopped there, long before the wall-clock timeout."""
    limits = None
    if not config.getoption("--grader-no-test-limits") and not config.getoption("--inprocess"):
        limits = per_test_limits()
        config.stash[_LIMITS] = limits
    for item in items:
        budget = _test_timeout(item)
        if budget:
            item.add_marker(pytest.mark.timeout(budget + TIMEOUT_GRACE), append=False)
        item.stash[_TEST_LIMITS] = limits_of_test(times_key(item), budget, limits)


def limits_of_test(key: str, budget: float | None, limits: PerTestLimits | None) -> TestLimits:
    """The limits of test `key` (`times_key`), the one place they are made: its wall-clock
    `budget`, and its CPU limits from `limits` (budgets.PerTestLimits; None: no CPU limits)."""
    if limits is None:
        return TestLimits(wall_s=budget or None, max_children=MAX_CHILDREN)
    cpu, call_cpu = limits.seconds(key), limits.call_seconds(key)
    per_call, per_child = limits.allowances()
    return TestLimits(
        wall_s=budget or None,
        cpu_s=cpu,
        cpu_basis=limits.basis(key) if cpu is not None else "",
        call_cpu_s=call_cpu,
        call_cpu_basis=limits.call_basis(key) if call_cpu is not None else "",
        per_call_s=per_call,
        per_child_s=per_child,
        max_children=MAX_CHILDREN,
    )


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, None]:
    """Before the test's clocks start (pytest-timeout's among them: this wrapper runs outside it),
    its worker imports the submission under the import's own limit (session.Session.prepare)."""
    session = _session(item)
    if session is not None:
        session.prepare()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, None]:
    session = _session(item)
    if session is not None:
        session.begin_test(item.stash[_TEST_LIMITS])
    yield
    if session is not None:
        used = session.end_test()
        times = item.config.stash.setdefault(_TIMES, {"tests": {}, "calls": {}, "counts": {}})
        times["tests"][times_key(item)] = used.cpu_s
        times["calls"][times_key(item)] = used.slowest_call_s
        times["counts"][times_key(item)] = [used.calls, used.children]  # for `make bench`


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    report = (yield).get_result()
    session = _session(item)
    test_over = call.when == "call" or (call.when == "setup" and not report.passed)
    if session is not None and (test_over or call.when == "teardown"):
        # The test is over for the worker: end it (and all it started), keep what it printed.
        item.stash[_OUTPUT] = item.stash.get(_OUTPUT, "") + session.recycle()
    if test_over or call.when == "teardown":
        record = outcome.record(item, report, call, item.stash.get(_OUTPUT, ""))
        if record is not None and session is not None:
            record["import"] = {"cpu_s": round(session.import_cpu_s, 2), "limit_s": session.import_cpu_limit}
        if record is not None:
            item.config.stash[_RECORDS].append(record)
            _journal(item.config, {"record": record})
            report.user_properties.append(("bpe_status", record["status"]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    times = session.config.getoption("--grader-test-times")
    if times:
        Path(times).write_text(
            json.dumps(
                session.config.stash.get(_TIMES, {"tests": {}, "calls": {}, "counts": {}}),
                indent=1,
                sort_keys=True,
            )
        )
    path = session.config.getoption("--grader-results")
    if path:
        records = outcome.merge(session.config.stash[_RECORDS])
        Path(path).write_text(json.dumps(records, indent=1, sort_keys=True))
