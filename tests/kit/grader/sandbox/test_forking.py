"""Each test's worker forked from one that imported the submission (grader/sandbox/forked.py).

A forked worker must give a test what a fresh one gives: the import paid once and by no test, its
prints in each test's output, nothing written by an earlier test, namespaces of its own, no
capability, and a crash told in the same words. When the zygote cannot be trusted to fork one
(it runs a process, maps shared memory, or works after its import), the grading goes on with
fresh workers.
"""

from __future__ import annotations

import time

import pytest
from grader_toys import HONEST, write_submission

from grader.errors import WorkerCrashed
from grader.sandbox import procstats
from grader.sandbox.forked import FORK_CPU_S, IDLE_CPU_S, NAMESPACES, ForkedWorker
from grader.sandbox.isolation import namespaces_available
from grader.sandbox.process import WorkerProcess
from grader.sandbox.proxy import connect

pytestmark = pytest.mark.skipif(not namespaces_available(), reason="forking needs namespaces")

TOOLS = """
import os

def write(path, text="left here"):
    with open(path, "w") as f:
        f.write(text)
    return path

def exists(path):
    return os.path.exists(path)

def uid():
    return os.getuid(), os.getgid()

def crash(how):
    if how == "exit":
        os._exit(3)
    import ctypes
    ctypes.string_at(0)  # a real segmentation fault (init ignores a signal it sends itself)
"""


def _toy(tmp_path, before: str = "") -> object:
    return write_submission(tmp_path / "sub", before + HONEST + TOOLS)


def _next_worker(bpe) -> WorkerProcess:
    """The worker of the next test: the current one ends, the spare takes over."""
    s = bpe.kit._session
    s.recycle()
    return s.current()


def test_each_tests_worker_is_forked_from_one_import_that_no_test_pays(tmp_path):
    spin = (
        "import time\n_end = time.process_time() + 0.4\nwhile time.process_time() < _end:\n    pass\n"
        "print('imported once')\n"
    )
    with connect(_toy(tmp_path, spin)) as bpe:
        s = bpe.kit._session
        outputs = []
        for _ in range(3):
            worker = s.current()
            assert isinstance(worker, ForkedWorker)
            assert worker.cpu_seconds() < 0.2  # the 0.4 s import is the zygote's, not the worker's
            assert bpe.merge([1, 2], (1, 2), 3) == [3]
            outputs.append(s.recycle())
        assert s.import_cpu_s >= 0.35
        assert procstats.own_cpu_seconds(s.workers.zygote.pid) < 1.0  # imported once, not three times
        # What the import printed is in each test's output, as it is with fresh workers.
        assert all(out.count("imported once") == 1 for out in outputs), outputs


def test_a_forked_worker_sees_nothing_an_earlier_test_wrote(tmp_path):
    with connect(_toy(tmp_path)) as bpe:
        written = [bpe.write(p) for p in ("/tmp/note", "/dev/shm/note", "note-in-scratch")]
        assert all(bpe.exists(p) for p in written)
        _next_worker(bpe)
        assert [bpe.exists(p) for p in written] == [False, False, False]
        assert bpe.write("note-in-scratch") == "note-in-scratch"  # its own scratch is writable


def test_a_forked_worker_has_namespaces_of_its_own_no_capability_and_a_fresh_workers_uid(tmp_path):
    with connect(_toy(tmp_path)) as bpe:
        forked_uid = bpe.uid()
        s = bpe.kit._session
        worker, zygote = s.current(), s.workers.zygote
        assert isinstance(worker, ForkedWorker)
        for ns in NAMESPACES:
            assert procstats.namespace(worker.pid, ns) != procstats.namespace(zygote.pid, ns), ns
        assert procstats.effective_caps(worker.pid) == 0
    with connect(_toy(tmp_path), fork=False) as fresh:
        assert not isinstance(fresh.kit._session.current(), ForkedWorker)
        # Each sandbox as root has a uid of its own: only whether it is the nobody of a user
        # namespace or a sandbox's own id must agree.
        assert (fresh.uid()[0] == 65534) == (forked_uid[0] == 65534)


@pytest.mark.parametrize("how", ["exit", "signal"])
def test_a_forked_workers_crash_is_told_as_a_fresh_workers(tmp_path, how):
    said = []
    for fork in (True, False):
        with connect(_toy(tmp_path), fork=fork) as bpe:
            with pytest.raises(WorkerCrashed) as crashed:
                bpe.crash(how)
            said.append(str(crashed.value))
            assert bpe.merge([1, 2], (1, 2), 3) == [3]  # the next call gets a new worker
    assert said[0] == said[1]
    assert ("status 3" if how == "exit" else "SIGSEGV") in said[0]


@pytest.mark.parametrize(
    "at_import",
    [
        # A process left running: it could carry one test's work to the next.
        "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n",
        # Memory shared for writing: every fork would share it with every other.
        "import mmap\n_shared = mmap.mmap(-1, 4096)\n",
        # A thread that works on after the import: work no test would pay for.
        "import threading, time\n"
        "def _work():\n    while True:\n        sum(range(10000))\n"
        "threading.Thread(target=_work, daemon=True).start()\n",
    ],
    ids=["process", "shared-memory", "busy-thread"],
)
def test_a_zygote_that_cannot_be_trusted_to_fork_leaves_the_tests_to_fresh_workers(tmp_path, at_import):
    with connect(_toy(tmp_path, at_import)) as bpe:
        s = bpe.kit._session
        kinds = []
        for _ in range(4):
            kinds.append(type(s.current()).__name__)
            assert bpe.merge([1, 2], (1, 2), 3) == [3]
            zygote = s.workers.zygote
            if zygote is not None and "threading" in at_import:
                _wait_for_work(zygote)
            s.recycle()
        assert kinds[-1] == "WorkerProcess", kinds
        assert not s.workers.forking and s.workers.zygote is None


def _wait_for_work(zygote) -> None:
    """Until the zygote has used more CPU time since its import than forking allows."""
    allowed = zygote.cpu_after_import + IDLE_CPU_S + FORK_CPU_S * (zygote.forks + 1)
    deadline = time.monotonic() + 60
    while procstats.own_cpu_seconds(zygote.pid) <= allowed and time.monotonic() < deadline:
        time.sleep(0.05)
