"""Hostile submissions, graded through the real CLI (jailed: tests/submissions/jail.py on top of
tests/kit/sandboxed.py): each earns exactly what it honestly earns, and after each run

- the grader exited 0 and wrote a valid results.json, and the report folder holds only its files;
- no process is left in the jail's PID namespace (checked after the row's `linger` seconds);
- the kit is untouched: nothing in grader/, tests/ (but the catalogue's own sources), data/fixtures/
  or solution/ carries a hostile marker (the jail also mounts the kit read-only, so a broken
  sandbox cannot damage the working tree), and no /tmp/bpe-kit-pwned-* trace appeared;
- no connection reached the test's listener on 127.0.0.1;
- nothing of the kit appears in the results (no path of it, nothing of solution/).

Graded twice: as root (the jail's user), then as an ordinary user (`sandboxed.ordinary_user`, as on
a Slurm node or a laptop), where the sandbox must give the same namespaced isolation ("userns")
without root. The ordinary user also grades one correct row, a Pool under 'spawn', to full marks.
"""

from __future__ import annotations

import glob

import catalogue
import jail
import pytest
from hostile_checks import AS_USER, HOSTILE, Listener, check_tests, kit_shown, tainted_kit_files
from prefetch import Prefetch, row_group, selected_params
from sandboxed import ordinary_user

from grader.sandbox.isolation import Isolation

WHOLE = "BPE_KIT_CATALOGUE=smoke: a quick run grades only the smoke rows (the whole catalogue takes ~4 min on 2 cores)"


def _param(entry: catalogue.Entry, runs: str, level: str):
    """A row's root and user runs share its xdist group, so they never run at once: both may
    leave the same trace in /tmp (TRACES), which would be charged to the other run."""
    skip = pytest.mark.skipif(not (entry.smoke or catalogue.grade_all()), reason=WHOLE)
    who = "user" if runs == "user_runs" else "root"
    return pytest.param(
        entry.name, runs, level, marks=[skip, row_group(entry.name)], id=f"{who}-{entry.name}"
    )


pytestmark = [pytest.mark.slow, pytest.mark.hostile]

TRACES = ("/tmp/bpe-kit-pwned-*", "/tmp/results")


def _traces() -> set[str]:
    return {path for pattern in TRACES for path in glob.glob(pattern)}


def _runs(request, work, runs: str, user: str | None = None) -> Prefetch:
    def job(name: str) -> dict:
        entry = catalogue.by_name(name)
        listener = Listener()
        try:
            sub = catalogue.materialize(
                entry, work / name / "submission", fill={"LISTEN_PORT": str(listener.port)}
            )
            traces_before = _traces()
            done = jail.grade_in_jail(
                sub, work / name / "out", tests=entry.select or None, linger=entry.linger, user=user
            )
        finally:
            connections = listener.close()
        return {"done": done, "connections": connections, "traces": sorted(_traces() - traces_before)}

    pool = Prefetch(job)
    pool.ahead(
        n
        for n in selected_params(request, "row", runs=runs)
        if catalogue.by_name(n).smoke or catalogue.grade_all()
    )
    return pool


@pytest.fixture(scope="module")
def hostile_runs(request, tmp_path_factory):
    pool = _runs(request, tmp_path_factory.mktemp("hostile"), "hostile_runs")
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def user_runs(request, tmp_path_factory):
    pool = _runs(request, tmp_path_factory.mktemp("hostile-user"), "user_runs", user=ordinary_user())
    yield pool
    pool.close()


@pytest.mark.parametrize(
    ("row", "runs", "level"),
    [
        *(_param(e, "hostile_runs", Isolation.NAMESPACES_UID) for e in HOSTILE),
        *(_param(e, "user_runs", Isolation.USERNS) for e in AS_USER),
    ],
)
def test_each_row_earns_only_what_it_honestly_earns(row, runs, level, request):
    """The same checks whoever grades: root (namespaces, then uid 65534) or an ordinary user (user
    namespaces, as on a Slurm node or a laptop)."""
    entry = catalogue.by_name(row)
    if entry.gap:
        request.applymarker(pytest.mark.xfail(strict=True, reason=entry.gap))
    run = request.getfixturevalue(runs).result(row)
    check_run(entry, run)
    assert run["done"].results["extra_data"]["isolation"] == level


def check_run(entry: catalogue.Entry, run: dict) -> None:
    name = entry.name
    done: jail.Jailed = run["done"]
    assert done.returncode == 0, f"{name}: the grader exited {done.returncode}:\n{done.stderr[-3000:]}"
    results = done.results
    assert results is not None, f"{name}: no valid results.json (out folder: {done.out_files})"
    assert done.out_files == ["junit.xml", "results.json"], f"{name}: report folder holds {done.out_files}"
    assert isinstance(results.get("score"), (int, float)) and isinstance(results.get("tests"), list)

    assert results["score"] == check_tests(entry, results["tests"])

    assert not done.leftovers, f"{name}: processes outlived the grading: {done.leftovers}"
    assert not run["traces"], f"{name}: left traces outside the sandbox: {run['traces']}"
    assert run["connections"] == 0, f"{name}: reached the test's listener on 127.0.0.1"
    tainted = tainted_kit_files()
    assert not tainted, f"{name}: the kit was written to: {tainted}"
    assert not kit_shown(results), f"{name}: the results show {kit_shown(results)}, of the kit"
