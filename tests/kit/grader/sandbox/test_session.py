"""The sandboxed `bpe` proxy against a small honest submission: values, handles, paths, kit helpers,
and the confinement the worker runs under."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import time

import pytest
from grader_toys import HONEST, write_submission

from grader import i18n
from grader.checks import speed
from grader.errors import (
    BadReply,
    CallStalled,
    CallTimeout,
    CpuLimitExceeded,
    ImportTooSlow,
    ModuleDoesNotImport,
)
from grader.paths import KIT_ROOT
from grader.sandbox import session as sandbox_session
from grader.sandbox.box import SANDBOX_IDS
from grader.sandbox.isolation import Isolation, namespaces_available
from grader.sandbox.per_test import TestLimits
from grader.sandbox.proxy import RemoteHandle, connect
from grader.sandbox.remote_errors import EndlessIterator, RemoteError

PROBES = (
    HONEST
    + """
def probe():
    import sys
    limits = {n: resource.getrlimit(getattr(resource, n)) for n in
              ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")}
    def visible(path):
        try:
            return sorted(os.listdir(path))
        except OSError:
            return None
    return {"uid": os.getuid(), "limits": limits, "env": dict(os.environ), "cwd": os.getcwd(),
            "kit": visible(KIT), "proc": visible("/proc"), "sid": os.getsid(0) == os.getpid(),
            "site": "site" in sys.modules or "sitecustomize" in sys.modules,
            "planted": "planted" in sys.modules, "path": list(sys.path)}

KIT = {kit!r}

def touch(path):
    with open(path, "w") as f:
        f.write("changed")

def read(path):
    with open(path) as f:
        return path, f.read()

def busy(n):
    return sum(i * i for i in range(n))

def in_child(work, arg):
    pid = os.fork()
    if pid == 0:
        globals()[work](arg)
        os._exit(0)
    os.waitpid(pid, 0)

def in_children(n, work, arg):
    for _ in range(n):
        in_child(work, arg)

def nap(seconds):
    time.sleep(seconds)

def spin(cpu_seconds):
    end = time.process_time() + cpu_seconds
    while time.process_time() < end:
        pass

class Slurper(CharBPE):
    def encode_iterable(self, chunks):
        text = "".join(chunks)
        yield len(text)

def slurper():
    return Slurper(["a"], [])

class Endless(CharBPE):
    def encode_iterable(self, chunks):
        while True:
            yield 0

def endless():
    return Endless(["a"], [])

def many_ids():
    return [7] * 12_000_000

def many_lists():
    return [[] for _ in range(1_200_000)]

def cores_seen():
    import multiprocessing
    counts = [os.cpu_count(), len(os.sched_getaffinity(0)), multiprocessing.cpu_count()]
    if hasattr(os, "process_cpu_count"):
        counts.append(os.process_cpu_count())
    if os.fork() == 0:  # a forked child (a Pool's worker) sees the same
        os._exit(os.cpu_count())
    return counts, os.waitstatus_to_exitcode(os.wait()[1])

def symlink_out(scratch_name):
    os.symlink("/etc/hostname", scratch_name)

def big_file(name, size):
    with open(name, "w") as f:
        f.write("x" * size)
""".replace("{kit!r}", repr(str(KIT_ROOT)))
)


@pytest.fixture(scope="module")
def bpe(tmp_path_factory):
    root = write_submission(
        tmp_path_factory.mktemp("sub"),
        PROBES,
        extra={
            "sitecustomize.py": "raise SystemExit(9)\n",
            "usercustomize.py": "raise SystemExit(9)\n",
            "planted.py": "X = 1\n",
            "conftest.py": "raise SystemExit(9)\n",
        },
    )
    with connect(root) as proxy:
        yield proxy


def test_values_come_back_as_exact_builtins_and_objects_as_handles(bpe):
    tok = bpe.CharBPE.train("abcab", 0)
    assert isinstance(tok, RemoteHandle)
    assert type(tok.vocab) is list and tok.vocab == ["\ufffd", "a", "b", "c"]
    ids = tok.encode("cab?")
    assert type(ids) is list and ids == [3, 1, 2, 0] and all(type(i) is int for i in ids)
    assert tok.decode(ids) == "cab\ufffd"
    assert bpe.merge([1, 1, 1], (1, 1), 9) == [9, 1]
    assert bpe.CharBPE(["a", "b"], [[[0, 1], 2]]).merges == [[[0, 1], 2]]


def test_student_exceptions_are_catchable_as_builtins(bpe):
    tok = bpe.CharBPE.train("ab", 0)
    with pytest.raises(ValueError, match="unknown id 99") as info:
        tok.decode([99])
    assert isinstance(info.value, RemoteError)
    assert 'bpe/__init__.py", line' in info.value.student_traceback
    assert "grader" not in info.value.student_traceback
    with pytest.raises(TypeError):
        bpe.CharBPE.train(b"bytes", 1)
    with pytest.raises(NotImplementedError):
        bpe.train_bpe("x.txt", 300, [])


def test_iterables_go_in_lazily_and_generators_come_back_lazily(bpe):
    tok = bpe.CharBPE.train("ab", 0)
    out = tok.encode_iterable(c for c in ["ab", "cde", ""])
    assert isinstance(out, RemoteHandle)
    assert list(out) == [2, 3, 0]


def test_worker_is_confined(bpe):
    info = bpe.probe()
    assert info["limits"]["RLIMIT_AS"][0] == 4 * 1024**3
    assert info["limits"]["RLIMIT_CORE"] == [0, 0] or info["limits"]["RLIMIT_CORE"] == (0, 0)
    for name in ("RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE"):
        assert info["limits"][name][0] != resource.RLIM_INFINITY
    assert info["env"]["PYTHONHASHSEED"] == "0" and info["env"]["LANG"] == "C.UTF-8"
    # PYTHONPATH names only the sandbox's own copies (bpe, regex), for children the submission starts
    assert all(not p.startswith(str(KIT_ROOT)) for p in info["env"].get("PYTHONPATH", "").split(os.pathsep))
    assert not info["site"] and not info["planted"]  # planted sitecustomize/conftest did nothing
    assert info["sid"]  # own session and process group
    assert not any("site-packages" in p for p in info["path"])
    if namespaces_available():
        # root: the sandbox's own uid; an ordinary user: uid 65534 of the worker's user namespace
        assert info["uid"] == (bpe._session.sandbox.uid if os.geteuid() == 0 else 65534)
        # The kit (solution/, hidden tests, fixtures) is covered by an empty tmpfs, or gone with
        # the tmpfs over /tmp when the kit itself lives there (as in a CI clone).
        assert info["kit"] in ([], None)
        assert info["proc"] == []
        assert info["cwd"].startswith("/tmp/bpe-kit/")


def test_path_arguments_are_copied_in_read_only(bpe, tmp_path):
    src = tmp_path / "corpus.txt"
    src.write_text("hello")
    path, text = bpe.read(src)
    assert text == "hello" and path != str(src) and path.endswith("/corpus.txt")
    if namespaces_available():  # read-only mount, and an unprivileged uid
        with pytest.raises(OSError, match=r"Read-only|Permission"):
            bpe.touch(src)
    assert src.read_text() == "hello"
    with pytest.raises(FileNotFoundError):
        bpe.read(str(tmp_path / "missing.txt"))  # str paths pass through unchanged


def test_outputs_are_read_back_capped_and_without_following_links(bpe):
    bpe.big_file(bpe.kit.outpath("small.txt"), 10)
    assert bpe.kit.read_output("small.txt") == b"x" * 10
    with pytest.raises(ValueError, match="larger"):
        bpe.kit.read_output("small.txt", max_bytes=5)
    bpe.symlink_out(bpe.kit.outpath("link"))
    with pytest.raises(OSError):
        bpe.kit.read_output("link")
    with pytest.raises(ValueError):
        bpe.kit.outpath("../escape")


def test_last_call_measures_the_workers_cpu_not_wall_time(bpe):
    """CPU seconds barely depend on machine load; the sleeping call uses almost none."""
    bpe.busy(3_000_000)
    busy = bpe.kit.last_call
    bpe.nap(0.3)
    nap = bpe.kit.last_call
    assert busy.cpu_s >= 0.05 and busy.wall_s >= busy.cpu_s * 0.9
    assert nap.wall_s >= 0.3 and nap.cpu_s < busy.cpu_s / 3


def test_streaming_memory_detects_reading_everything_at_once(bpe, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("abcdefgh" * (40 * 1024 * 1024 // 8))  # 40 MiB
    lazy = bpe.kit.encode_file_streaming(bpe.CharBPE(["a"], []), big, chunk_chars=65536)
    greedy = bpe.kit.encode_file_streaming(bpe.slurper(), big, chunk_chars=65536)
    assert sum(lazy.ids) == sum(greedy.ids) == 40 * 1024 * 1024
    assert lazy.peak_growth_bytes < 10 * 1024 * 1024
    assert greedy.peak_growth_bytes > 35 * 1024 * 1024


def test_an_endless_generator_is_stopped_at_a_bound_on_its_inputs_bytes(bpe, tmp_path):
    tok = bpe.endless()
    with pytest.raises(EndlessIterator, match=r"more than 10,010 items .* endless generator"):
        list(tok.encode_iterable(["ab", "cde"]))  # 5 bytes: 2 x 5 + 10,000 ids at most
    path = tmp_path / "small.txt"
    path.write_text("x" * 1000)
    with pytest.raises(
        EndlessIterator, match=r"encode_iterable\(a file of 1,000 bytes.*more than 12,000 ids"
    ):
        bpe.kit.encode_file_streaming(bpe.endless(), path)
    assert bpe.merge([1, 2], (1, 2), 3) == [3]


def test_an_enormous_reply_is_refused_by_its_size_and_the_next_call_is_served(bpe):
    with pytest.raises(BadReply, match="12,000,000 items is larger than the 16 MiB reply limit"):
        bpe.many_ids()
    with pytest.raises(BadReply, match="more than 1,000,000 lists"):
        bpe.many_lists()  # 3 bytes each: under the size cap, over the container cap
    with (
        i18n.speaking("zh"),
        pytest.raises(BadReply, match="含 12,000,000 项的 list 超过了应答 16 MiB"),
    ):
        bpe.many_ids()  # the worker sends what it measured, not English words, so it is said in Chinese
    assert bpe.merge([1, 2], (1, 2), 3) == [3]


def test_handles_die_with_their_worker(bpe):
    tok = bpe.CharBPE.train("ab", 0)
    bpe.kit.restart()
    with pytest.raises(RuntimeError, match="earlier worker"):
        tok.encode("a")
    assert bpe.CharBPE.train("ab", 0).encode("a") == [1]


def test_per_call_timeout_kills_and_the_next_call_gets_a_fresh_worker(bpe):
    with bpe.kit.timeout(0.5):
        with pytest.raises(CallTimeout):
            bpe.nap(30)
    assert bpe.merge([1, 2], (1, 2), 3) == [3]


@pytest.mark.parametrize("where", ["in the worker", "in a child"])
def test_a_cpu_cap_stops_a_busy_call_long_before_its_wall_limit(bpe, where):
    start = time.monotonic()
    with bpe.kit.timeout(120, cpu=0.5):
        with pytest.raises(CpuLimitExceeded):  # a minute of CPU time, if nothing stopped it
            bpe.spin(60) if where == "in the worker" else bpe.in_child("spin", 60)
    assert time.monotonic() - start < 60, "the cap was read late, or not on the processes doing the work"
    assert bpe.merge([1, 2], (1, 2), 3) == [3]


def test_a_cpu_cap_lets_a_call_within_it_finish_and_leaves_the_next_calls_alone(bpe):
    with bpe.kit.timeout(120, cpu=30):
        bpe.spin(0.3)
    assert 0.2 < bpe.kit.last_call.cpu_s < 30
    bpe.spin(1.0)  # no cap outside the block
    with bpe.kit.timeout(0.5, cpu=30):
        with pytest.raises(CallTimeout) as info:
            bpe.nap(30)  # a call that waits uses no CPU: the wall limit ends it
    assert not isinstance(info.value, CpuLimitExceeded)


def test_a_tests_cpu_limit_is_shared_by_its_calls_and_stops_a_loop(bpe):
    """The plugin sets each test's limit (budgets.PerTestLimits); calls inside `bpe.kit.timeout`
    have their own limits and do not count."""
    s = bpe.kit._session
    s.begin_test(TestLimits(cpu_s=0.4, cpu_basis="a test limit", per_call_s=0.3))
    try:
        bpe.spin(0.3)
        with bpe.kit.timeout(30, cpu=5):
            bpe.spin(0.8)
        bpe.spin(0.3)  # 0.6 s used of 0.4 + 2 x 0.3
        assert 0.55 <= s.test_used.cpu_s < 1.0  # /proc counts CPU in 10 ms ticks: 2 x 0.3 s may read 0.59
        with pytest.raises(
            CpuLimitExceeded,
            match=r"spin\(60\) did not answer in time: stopped when this test had used its limit of 1.3 s of CPU time \(a test limit\)",
        ):
            bpe.spin(60)
    finally:
        s.end_test()
    bpe.spin(1.2)  # no limit outside a test


def test_a_test_whose_reference_took_no_time_still_gets_an_allowance(bpe):
    """A recorded 0.00 s (a test of cheap calls) is a limit of one allowance, not of 0: the test's
    first exchange may be an attribute read that pays for importing the submission."""
    s = bpe.kit._session
    s.recycle()  # a fresh worker: the next attribute read is this test's first exchange
    s.begin_test(TestLimits(cpu_s=0.0, cpu_basis="a test limit", per_call_s=0.5))
    try:
        assert s.test_cpu_allowed() == 0.5
        bpe.spin(0.2)  # the read of `spin`, then the call: within 0 + 1 x 0.5
        assert s.test_used.calls == 1
    finally:
        s.end_test()


def test_one_call_is_stopped_at_its_own_limit_long_before_the_tests(bpe):
    """A property test makes a hundred small calls: its first call that loops is stopped at the
    limit of one call (budgets.PerTestLimits.call_seconds), not at the whole test's."""
    s = bpe.kit._session
    s.begin_test(
        TestLimits(
            cpu_s=30.0,
            cpu_basis="a test limit",
            call_cpu_s=0.2,
            call_cpu_basis="a call limit",
            per_call_s=0.3,
        )
    )
    try:
        bpe.spin(0.3)  # within its 0.2 + 0.3
        assert 0.25 <= s.test_used.slowest_call_s < 0.5
        started = time.monotonic()
        with pytest.raises(
            CpuLimitExceeded,
            match=r"spin\(60\) did not answer in time: stopped when it had used its limit of 0.5 s of "
            r"CPU time for one call \(a call limit\)",
        ):
            bpe.spin(60)
        assert time.monotonic() - started < 10  # not the test's 30 s
    finally:
        s.end_test()


def test_each_process_a_call_runs_moves_its_limit(bpe):
    """A pool's children each start Python and import the submission: every process a call runs
    earns it an allowance (up to a maximum), so a pool of 16 on a big machine passes as one of 2."""
    s = bpe.kit._session
    s.begin_test(
        TestLimits(
            cpu_s=30.0,
            cpu_basis="a test limit",
            call_cpu_s=0.1,
            call_cpu_basis="a call limit",
            per_call_s=0.2,
            per_child_s=0.6,
            max_children=4,
        )
    )
    try:
        bpe.in_child("spin", 0.5)  # over 0.1 + 0.2 in a child, within 0.1 + 0.2 + 0.6
        assert s.test_used.children == 1
        with pytest.raises(
            CpuLimitExceeded,
            match=r"limit of 0.9 s of CPU time for one call \(a call limit; it ran 1 more process\)",
        ):
            bpe.in_child("spin", 60)
        s.test_limits = dataclasses.replace(s.test_limits, max_children=0)  # none earns an allowance
        with pytest.raises(CpuLimitExceeded):  # the same work is stopped
            bpe.in_child("spin", 0.5)
    finally:
        s.end_test()


def test_a_slow_import_moves_a_calls_limit_once_not_once_per_process(bpe):
    """A spawned pool child imports the package again, a forked one does not: a slow import is
    paid for once per call that runs any process, so a fork pool cannot buy one import per child."""
    s = bpe.kit._session
    s.import_cpu_s = 1.2  # as if importing the package took that (over IMPORT_NOTED_S)
    s.begin_test(
        TestLimits(
            cpu_s=30.0,
            cpu_basis="a test limit",
            call_cpu_s=0.1,
            call_cpu_basis="a call limit",
            per_call_s=0.2,
            per_child_s=0.1,
            max_children=4,
        )
    )
    try:
        bpe.in_child("spin", 1.0)  # within 0.1 + 0.2 + 0.1 + 1.2
        # Three processes: 0.1 + 0.2 + 3 x 0.1 + 1.2, not 0.1 + 0.2 + 3 x (0.1 + 1.2).
        with pytest.raises(
            CpuLimitExceeded,
            match=r"limit of 1.8 s of CPU time for one call \(a call limit; it ran 3 more processes, "
            r"allowed once the 1.2 s your package takes to import\)",
        ):
            bpe.in_children(3, "spin", 0.7)
    finally:
        s.end_test()
        s.import_cpu_s = 0.0


def test_a_fresh_workers_import_is_charged_to_no_test_and_no_call(tmp_path):
    """The worker says it is ready, then imports the submission: a package that imports torch
    spends seconds there, in every test's fresh worker. Neither the test nor its first call pays."""
    root = write_submission(
        tmp_path / "sub",
        "import time\n_end = time.process_time() + 0.6\nwhile time.process_time() < _end:\n"
        "    pass\ndef one():\n    return 1\n",
    )
    with connect(root) as bpe:
        s = bpe.kit._session
        s.current()
        s.recycle()
        s.workers.spare.close()  # the next worker starts now, and its first call waits for its import
        s.workers.spare = None
        s.begin_test(
            TestLimits(
                cpu_s=0.1,
                cpu_basis="a test limit",
                call_cpu_s=0.1,
                call_cpu_basis="a call limit",
                per_call_s=0.2,
            )
        )
        assert bpe.one() == 1  # its import (0.6 s) is more than the test's 0.1 + 0.2
        assert s.test_used.slowest_call_s < 0.2 and s.test_used.cpu_s < 0.2
        assert s.import_cpu_s >= 0.5  # measured, for the report's header


def test_an_import_over_its_own_limit_leaves_every_test_ungraded_in_one_sentence(tmp_path):
    """Not a test's slowness: its own limit, its own words, and no worker is started again for it."""
    root = write_submission(tmp_path / "sub", "while True:\n    pass\ndef one():\n    return 1\n")
    with connect(root) as bpe:
        s = bpe.kit._session
        s.import_cpu_limit = 0.5
        s.begin_test(TestLimits(cpu_s=30.0, cpu_basis="a test limit", per_call_s=0.2))
        for _ in range(2):
            with pytest.raises(ImportTooSlow) as info:
                bpe.one()
            assert (
                info.value.verdict() == "not graded: your bpe package did not import within 0.5 s of CPU time"
            )
        assert s.worker is None
    assert isinstance(info.value, ModuleDoesNotImport)  # the report's banner says it once


def test_an_import_that_waits_is_stopped_once_and_never_tried_again(tmp_path, monkeypatch):
    """An import stopped by a wall-clock or stall limit would wait as long again in every test:
    it is remembered, and every later call is not graded in the words that stopped it."""
    from grader.sandbox import process

    monkeypatch.setattr(process, "IDLE_S", 1.0)
    root = write_submission(tmp_path / "sub", "import time\ntime.sleep(60)\ndef one():\n    return 1\n")
    with connect(root) as bpe:
        s = bpe.kit._session
        s.prepare()  # the import, stopped once its CPU time stood still for 1 s
        assert s.worker is None and s.workers.spare is None
        for _ in range(2):
            s.prepare()
            assert s.worker is None and s.workers.spare is None  # no worker is started for it again
            with pytest.raises(ModuleDoesNotImport) as info:
                bpe.one()
            assert info.value.verdict().startswith(
                "not graded: importing your bpe package was stopped: it used no CPU time for 1 s"
            ), info.value.verdict()


def test_with_stubs_left_a_slow_import_is_still_made_before_the_test(tmp_path, monkeypatch):
    """A stub left (the census) lets a test skip its worker; but a slow import skipped before the
    test would be made at its first call, inside the test's wall clock: only a fast one is skipped."""
    source = "def stub():\n    raise NotImplementedError\n"
    slow = "import time\n_end = time.process_time() + 0.3\nwhile time.process_time() < _end:\n    pass\n"
    for prelude, imported_before in (("", False), (slow, True)):
        root = write_submission(tmp_path / str(imported_before), prelude + source)
        monkeypatch.setattr(sandbox_session, "IMPORT_NOTED_S", 0.2)
        with connect(root) as bpe:
            s = bpe.kit._session
            s.prepare()  # the first import, which takes the census
            assert set(s.census.stubs) == {"stub"}
            s.recycle()
            s.prepare()
            assert (s.worker is not None and s.worker.imported) is imported_before


def test_a_call_whose_cpu_time_stands_still_is_stopped_before_its_wall_limit(bpe, monkeypatch):
    """A Pool whose child was killed waits for ever: nothing of it runs, its CPU time stands still,
    and it is stopped after process.IDLE_S (1 s here), not at its wall-clock limit."""
    from grader.sandbox import process

    monkeypatch.setattr(process, "IDLE_S", 1.0)
    started = time.monotonic()
    with bpe.kit.timeout(60):
        with pytest.raises(CallStalled) as info:
            bpe.nap(60)
    assert time.monotonic() - started < 15
    text = str(info.value)
    assert text.startswith("nap(60) was stopped: it used no CPU time for 1 s"), text
    assert "waiting on something that never comes" in text
    with bpe.kit.timeout(60):
        bpe.spin(2.5)  # busy for longer than IDLE_S: never stalled


def test_a_running_process_is_runnable_and_a_sleeping_one_is_not():
    """The guard that keeps a starved call on a saturated machine from reading as stalled."""
    import subprocess
    import sys

    from grader.sandbox import procstats

    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        deadline = time.monotonic() + 30  # on a loaded machine the sleeper may take a while to start
        while procstats.tree_runnable(idle.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not procstats.tree_runnable(idle.pid)
        assert procstats.tree_runnable(busy.pid)
    finally:
        for p in (busy, idle):
            p.kill()
            p.wait()


def _busy_loop():
    os.setsid()  # a session of its own, as the worker has: CFS autogroups share a cpu by session
    while True:
        pass


@contextlib.contextmanager
def _one_cpu_shared_with_hogs(bpe, n: int = 4):
    """The worker and `n` busy loops on ONE cpu: the worker gets a fraction of a core on any machine."""
    import multiprocessing

    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(bpe.kit._session.current().pid, {cpu})
    hogs = [multiprocessing.get_context("fork").Process(target=_busy_loop, daemon=True) for _ in range(n)]
    for hog in hogs:
        hog.start()
        os.sched_setaffinity(hog.pid, {cpu})
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.join()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
def test_a_call_slowed_by_a_saturated_machine_is_told_so_not_that_it_waits(bpe):
    """The worker and 4 busy loops share ONE cpu, so the worker gets a fraction of a core on any
    machine (each in its own session, so the scheduler's autogroups give each an equal share): a
    call that works steadily runs out of wall time while its CPU time keeps moving."""
    with _one_cpu_shared_with_hogs(bpe):
        with bpe.kit.timeout(2.5):
            with pytest.raises(CallTimeout) as info:
                bpe.spin(60)
    text = str(info.value)
    assert "spin(60) did not answer in time" in text and "It was working all along" in text, text
    assert "overloaded" not in text and "waiting on something" not in text
    assert speed.why_it_ran_long(info.value.samples).startswith("It was working all along")
    with bpe.kit.timeout(1.5):
        with pytest.raises(CallTimeout) as info:
            bpe.nap(30)
    assert "Its CPU time stood still" in str(info.value) and "waiting on something" in str(info.value)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
def test_a_capped_call_at_work_on_a_saturated_machine_gets_more_wall_time(bpe):
    """CPU time is what a grade measures: a CPU-capped call that works steadily on a fifth of a core
    finishes past its wall-clock deadline, up to STRETCH x it; one that waits is stopped at it."""
    from grader.sandbox import process

    with _one_cpu_shared_with_hogs(bpe):
        with bpe.kit.timeout(2.0, cpu=5.0):
            bpe.spin(0.5)  # 2.5 s or more of wall time on a fifth of a core
        assert bpe.kit._session.current().stretched_s > 0
        with bpe.kit.timeout(1.0, cpu=30.0):
            with pytest.raises(CallTimeout) as info:
                bpe.spin(20)
    assert "It was working all along" in str(info.value), str(info.value)
    wall_s = info.value.samples[-1][0]
    assert process.STRETCH * 1.0 - process.STRETCH_STEP_S <= wall_s <= process.STRETCH * 1.0 + 2, wall_s
    with bpe.kit.timeout(1.5, cpu=5.0):
        with pytest.raises(CallTimeout) as info:
            bpe.nap(30)
    assert "Its CPU time stood still" in str(info.value)
    assert info.value.samples[-1][0] < 1.5 + process.STRETCH_STEP_S


def test_a_test_whose_own_wall_limit_runs_out_is_told_so_with_its_figures(bpe):
    """The test's own deadline (set per test by the plugin), not the call's, ends the call: the
    words name that limit and the test's calls, never the machine."""

    session = bpe.kit._session
    session.begin_test(TestLimits(wall_s=2.0))
    try:
        with pytest.raises(CallTimeout) as info:
            bpe.spin(60)
    finally:
        session.end_test()
        session.call_timeout = sandbox_session.DEFAULT_CALL_TIMEOUT
    text = str(info.value)
    assert "this test's own limit of 2 s of wall-clock time ran out during it, after 1 call into" in text, (
        text
    )
    assert "overloaded" not in text and "endless loop" not in text


def test_the_submission_sees_one_core_count_everywhere_and_the_kit_can_set_it(bpe):
    counts, child = bpe.cores_seen()
    assert len(set(counts)) == 1 and child == counts[0], counts  # what it may really use
    for n in (2, 5):
        with bpe.kit.cores(n):
            counts, child = bpe.cores_seen()
        assert set(counts) == {n} and child == n
    assert bpe.cores_seen()[0][0] == len(os.sched_getaffinity(0))  # restored after the block


def test_cpu_of_child_processes_is_counted(bpe):
    bpe.busy(3_000_000)
    alone = bpe.kit.last_call.cpu_s
    bpe.in_child("busy", 3_000_000)
    assert bpe.kit.last_call.cpu_s > alone / 2


def test_a_package_that_does_not_import_fails_each_call_with_its_error(tmp_path):
    root = write_submission(tmp_path / "broken", "def merge(:\n")
    with connect(root) as broken:
        with pytest.raises(ModuleDoesNotImport) as info:
            broken.merge([1], (1, 1), 2)
    assert (info.value.file, info.value.line, info.value.error) == ("bpe/__init__.py", 1, "SyntaxError")
    assert info.value.text == "def merge(:"


def test_scratch_space_is_capped(bpe):
    if not namespaces_available():
        pytest.skip("the scratch cap needs namespaces")
    with pytest.raises(OSError, match="No space"):
        bpe.big_file(bpe.kit.outpath("huge.txt"), 80 * 1024 * 1024)


def test_without_namespaces_a_worker_cannot_read_another_sandbox(tmp_path):
    """Uid-only isolation (root without namespaces): each sandbox has a uid and a group of its own,
    so a worker can enter no other sandbox, and counts its own processes only."""
    from grader.sandbox.isolation import uid_drop_available

    if not uid_drop_available():
        pytest.skip("needs root and an interpreter uid 65534 can run")
    other = write_submission(tmp_path / "other", "SECRET = 1\n")
    mine = write_submission(tmp_path / "mine", PROBES + "\nimport regex\n")
    with connect(other, namespaces=False) as theirs, connect(mine, namespaces=False) as me:
        assert me.kit.isolation == Isolation.UID
        assert theirs.SECRET == 1
        assert me.probe()["uid"] in SANDBOX_IDS and me.probe()["uid"] != theirs._session.sandbox.uid
        secret = theirs._session.sandbox.root / "submission" / "bpe" / "__init__.py"
        with pytest.raises(PermissionError):
            me.read(str(secret))
        _path, text = me.read(tmp_path / "mine" / "bpe" / "__init__.py")  # its own inputs: fine
        assert "def probe" in text


def test_a_progress_bar_redrawn_with_carriage_returns_keeps_only_its_last_state():
    """What the student's code printed is kept as a terminal shows it (tqdm redraws one line)."""
    from grader.sandbox.process import as_a_terminal_shows

    bar = "".join(f"\rtraining: {i:3d}%" for i in range(0, 101, 10))
    assert (
        as_a_terminal_shows(f"DEBUG start\n{bar}\nDEBUG end\n") == "DEBUG start\ntraining: 100%\nDEBUG end\n"
    )
    assert as_a_terminal_shows("done\r\n") == "done\n"  # a Windows line ending is one line


def test_what_unshare_says_of_a_killed_worker_is_not_the_students_output():
    from grader.sandbox.process import without_unshare

    bar = "merges:  23%|##| 171/743"  # a progress bar, its newline never printed: the worker was killed
    said = "unshare: sigprocmask unblock failed: Invalid argument\n"
    assert without_unshare(f"start\n{bar}{said}") == f"start\n{bar}\n"
    assert without_unshare(f"start\n{said}") == "start\n"
