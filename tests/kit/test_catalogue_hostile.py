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
import json
import socket
import threading

import catalogue
import jail
import pytest
from prefetch import Prefetch, row_group, selected_params
from sandboxed import ordinary_user

from grader import rubric
from grader.paths import DEFAULT_RUBRIC, KIT_ROOT

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

ENTRIES = [e for e in catalogue.load() if e.kind == "hostile"]
ID_OF = {e.number: e.id for e in rubric.load(DEFAULT_RUBRIC)}
MARKERS = (b"BPE-KIT-TAMPERED", b"BPE-KIT-DAEMON", b"bpe-kit-network-probe")
WATCHED = ("grader", "tests", "data/fixtures", "solution")
TRACES = ("/tmp/bpe-kit-pwned-*", "/tmp/results")
# Graded as the ordinary user too: every hostile row, and one correct row that starts processes.
AS_USER = [*ENTRIES, catalogue.by_name("pool_spawn")]


class Listener:
    """A TCP listener on 127.0.0.1 that counts connections (none may ever arrive)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> int:
        self._stop.set()
        self._thread.join()
        self.sock.close()
        return self.connections


def tainted_kit_files() -> list[str]:
    """Kit files carrying a hostile marker (the catalogue's own sources excluded)."""
    found = []
    for top in WATCHED:
        for path in (KIT_ROOT / top).rglob("*"):
            rel = path.relative_to(KIT_ROOT)
            if "submissions" in rel.parts or rel.name.startswith("test_catalogue_") or not path.is_file():
                continue
            if path.name.startswith("daemon_was_here"):
                found.append(str(path))
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(m in data for m in MARKERS):
                found.append(str(path))
    return found


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
        *(_param(e, "hostile_runs", "namespaces+uid") for e in ENTRIES),
        *(_param(e, "user_runs", "userns") for e in AS_USER),
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

    wrong = []
    for t in results["tests"]:
        test_id = ID_OF[t["number"]]
        lost = t["score"] < t["max_score"]
        if lost != entry.must_fail(test_id):
            first = " / ".join(t["output"].strip().splitlines()[:3])
            wrong.append(f"{t['number']} {test_id}: {'lost' if lost else 'kept'} its points. {first}")
    assert not wrong, f"{name} ({entry.why}):\n" + "\n".join(wrong)
    for t in results["tests"]:
        words = entry.feedback.get(ID_OF[t["number"]])
        assert words is None or words in t["output"], (
            f"{name}: {t['number']} should say {words!r}:\n{t['output']}"
        )
    honest = sum(t["max_score"] for t in results["tests"] if not entry.must_fail(ID_OF[t["number"]]))
    assert results["score"] == honest
    if entry.score is not None:
        assert results["score"] == entry.score
    assert results["tests"], f"{name}: nothing was graded"

    assert not done.leftovers, f"{name}: processes outlived the grading: {done.leftovers}"
    assert not run["traces"], f"{name}: left traces outside the sandbox: {run['traces']}"
    assert run["connections"] == 0, f"{name}: reached the test's listener on 127.0.0.1"
    tainted = tainted_kit_files()
    assert not tainted, f"{name}: the kit was written to: {tainted}"
    shown = json.dumps(results)
    for leak in (str(KIT_ROOT), "solution/bpe", "solution imported from"):
        assert leak not in shown, f"{name}: the results show {leak!r}, of the kit"
