"""Hostile submissions against the whole grader (CLI), always inside `sandboxed.run_sandboxed`.

One toy submission misbehaves in every way the worker must survive; one toy suite calls each
misbehaviour, then checks that a fresh worker serves the next test and that nothing is left running.
Graded at each isolation level (`--isolation auto|uid|process-group`): a level this machine cannot
provide falls back to a weaker one, and the checks follow the level actually used.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from grader_toys import HONEST, by_name, write_submission, write_suite
from sandboxed import grade_sandboxed, run_sandboxed

from grader import api
from grader.paths import KIT_ROOT

pytestmark = [pytest.mark.hostile, pytest.mark.slow]

HOSTILE = (
    HONEST
    + """
import signal

def exit_now():
    sys.exit(3)

def hard_exit():
    os._exit(5)

class Doom(BaseException):
    pass

def doom():
    raise Doom("not an Exception")

def segfault():
    import ctypes
    ctypes.string_at(0)

def memory_bomb():
    hog = bytearray(8 * 1024**3)
    return len(hog)

def huge_reply():
    return "x" * (80 * 1024 * 1024)

def deep_reply():
    v = []
    for _ in range(100_000):
        v = [v]
    return v

def forever():
    while True:
        pass

def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(0.05)
        os._exit(0)
    os.wait()
    return "spawned"

def fork_many():
    n = 0
    for _ in range(40):
        try:
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            n += 1
        except OSError:
            break
    return n

def kill_everyone():
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:  # nobody else to kill
        pass
    return "still here"

def try_write(path):
    try:
        with open(path, "w") as f:
            f.write("{}")
        return "wrote"
    except OSError as e:
        return type(e).__name__

def try_read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return type(e).__name__

def noisy():
    print("A" * 200_000)
    return 1
"""
)

SUITE = '''
import os

def leftovers():
    """Worker processes alive now, by worker token; plus processes of a sandbox's uid (box.SANDBOX_IDS)
    or of uid 65534 without one."""
    tokens, loose = {}, []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\\0")
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        token = [e for e in env if e.startswith(b"BPE_KIT_WORKER=")]
        if token:
            tokens.setdefault(token[0], []).append(pid)
        elif uid == 65534 or (1 << 20) <= uid < (1 << 21):
            loose.append(open(f"/proc/{pid}/status").read().split("\\n")[:3])
    return tokens, loose

def test_exit(bpe):
    bpe.exit_now()

def test_hard_exit(bpe):
    bpe.hard_exit()

def test_base_exception(bpe):
    with pytest.raises(Exception):  # must not be able to swallow the failure
        bpe.doom()

def test_segfault(bpe):
    bpe.segfault()

def test_memory_bomb(bpe):
    bpe.memory_bomb()

def test_huge_reply(bpe):
    bpe.huge_reply()

def test_deep_reply(bpe):
    bpe.deep_reply()

@pytest.mark.timeout(3)
def test_forever(bpe):
    bpe.forever()

def test_daemon(bpe):
    assert bpe.daemon() == "spawned"

def test_fork_many(bpe):
    assert bpe.fork_many() > 0

def test_noisy(bpe):
    assert bpe.noisy() == 1

def test_write_reports(bpe):
    assert bpe.try_write(OUT + "/results.json") != "wrote"

def test_read_solution(bpe):
    assert bpe.try_read(SOLUTION) in ("FileNotFoundError", "PermissionError")

def test_kill_everyone(bpe):
    if NAMESPACES:
        assert bpe.kill_everyone() == "still here"

def test_still_serving_and_clean(bpe):
    tokens, loose = leftovers()
    assert loose == []
    # Only the spare worker (started ahead for this test) may be alive: python, and its unshare;
    # with forked workers (grader/sandbox/forked.py) the zygote and its unshare, and the spare's
    # keeper and worker. Every worker of an earlier test, and all it started, is gone.
    assert len(tokens) <= 1 and all(len(pids) <= (4 if FORKS else 2) for pids in tokens.values()), tokens
    assert bpe.merge([1, 1], (1, 1), 2) == [2]
'''


@pytest.fixture(scope="module", params=["auto", "uid", "process-group"])
def graded(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    sub = write_submission(tmp / "sub", HOSTILE)
    out = tmp / "out"
    level = api.isolation_level(isolation=request.param)
    # kill(-1) is harmless to the grader only when the worker is not the grader's own uid.
    source = (
        f"OUT = {str(out)!r}\nSOLUTION = {str(KIT_ROOT / 'solution/bpe/__init__.py')!r}\n"
        f"NAMESPACES = {level != 'process-group'}\nFORKS = {level.startswith('namespaces')}\n" + SUITE
    )
    tests, rubric = write_suite(tmp, source)
    proc = grade_sandboxed(sub, out, tests_dir=tests, rubric=rubric, extra=["--isolation", request.param])
    assert proc.returncode == 0, proc.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["extra_data"]["isolation"] == level
    return level, by_name(results)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("test_exit", "SystemExit"),
        ("test_hard_exit", "exited with status 5"),
        ("test_base_exception", "Doom"),
        ("test_segfault", "SIGSEGV"),
        ("test_memory_bomb", "hit the memory limit of 4 GiB per process (RLIMIT_AS): MemoryError"),
        ("test_huge_reply", "larger than"),
        ("test_deep_reply", "nested deeper"),
        ("test_forever", "did not answer in time"),
    ],
)
def test_misbehaviour_fails_only_its_test_with_a_reason(graded, name, words):
    _, tests = graded
    assert tests[name]["status"] == "failed"
    assert words in tests[name]["output"]


def test_workers_are_replaced_and_nothing_is_left_running(graded):
    _mode, tests = graded
    for name in ("test_daemon", "test_fork_many", "test_kill_everyone", "test_still_serving_and_clean"):
        assert tests[name]["status"] == "passed", tests[name]["output"]


def test_worker_cannot_touch_reports_or_the_kit(graded):
    """With namespaces the report folder and the kit are out of the worker's view; with only a uid
    drop, the report folder is still out of reach. Without either, the reports are still the
    grader's, because they are written after every worker is dead."""
    level, tests = graded
    if level != "process-group":
        assert tests["test_write_reports"]["status"] == "passed", tests["test_write_reports"]["output"]
    if level == "namespaces+uid":
        assert tests["test_read_solution"]["status"] == "passed", tests["test_read_solution"]["output"]


def test_output_is_attached_and_capped(graded):
    _, tests = graded
    out = tests["test_noisy"]["output"]
    assert "Output of your code during this test:\nAAAA" in out
    assert 64 * 1024 <= len(out) < 70 * 1024 and "more bytes of output not shown" in out


def test_killing_the_grader_leaves_no_worker_behind(tmp_path):
    """Even a grader killed outright (no cleanup) takes its workers with it."""
    sub = write_submission(tmp_path / "sub", HOSTILE)
    script = tmp_path / "killed.py"
    script.write_text(f"""
import os, signal, sys, time
from pathlib import Path
from grader.sandbox.proxy import connect
with connect(Path({str(sub)!r})) as bpe:
    uid = bpe._session.sandbox.uid  # the sandbox's own (box.SANDBOX_IDS); None for an ordinary user
    bpe.daemon()
    bpe.fork_many()
    if os.fork() == 0:   # the grader dies while its workers are busy
        time.sleep(0.5)
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(1.5)
        left = [p for p in os.listdir("/proc") if p.isdigit() and os.stat("/proc/" + p).st_uid == uid]
        print("LEFT", left, flush=True)
        os._exit(0)
    with bpe.kit.timeout(30):
        bpe.forever()
""")
    # Under a shell, so the grader is not the namespace's init (which SIGKILL cannot reach).
    # TMPDIR: the sandbox of a grader that cannot clean up lands in this test's own folder.
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = run_sandboxed(["sh", "-c", f"{sys.executable} {script}; sleep 3"], timeout=60, env=env)
    assert "LEFT []" in proc.stdout, proc.stdout + proc.stderr
