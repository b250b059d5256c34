"""Code that runs into a limit of its worker is told which limit, its value and the call, as one
fault (grader/sandbox/limit_words.py): never a stall, an endless loop or an overloaded machine.
And each grading counts its own processes (grader/sandbox/box.py: a uid, or a user namespace,
of its own)."""

from __future__ import annotations

import pytest
from grader_toys import write_submission

from grader.errors import CallStalled
from grader.sandbox.isolation import namespaces_available
from grader.sandbox.limit_words import (
    DISK,
    FILE_SIZE,
    MEMORY,
    OPEN_FILES,
    PROCESSES,
    limit_hit,
    limit_in_output,
)
from grader.sandbox.options import Limits
from grader.sandbox.proxy import connect

THREADS = """
import multiprocessing, threading

def threads(n):
    done = threading.Event()
    started = []
    for _ in range(n):
        t = threading.Thread(target=done.wait, args=(5,))
        t.start()
        started.append(t)
    done.set()
    return len(started)

def _hold(n, queue):
    queue.put(threads(n))

def child_threads(n):
    # the child is refused, prints its traceback and dies; this process waits for ever
    queue = multiprocessing.get_context("fork").Queue()
    multiprocessing.get_context("fork").Process(target=_hold, args=(n, queue)).start()
    return queue.get()
"""

# Running out of threads on purpose: only inside the worker's own PID namespace.
confined = pytest.mark.skipif(not namespaces_available(), reason="runs out of threads: a PID namespace only")


@pytest.mark.parametrize(
    ("error", "message", "kind"),
    [
        ("BlockingIOError", "[Errno 11] Resource temporarily unavailable", PROCESSES),
        ("RuntimeError", "can't start new thread", PROCESSES),
        ("MemoryError", "", MEMORY),
        ("OSError", "[Errno 24] Too many open files: 'x.txt'", OPEN_FILES),
        ("OSError", "[Errno 27] File too large", FILE_SIZE),
        ("OSError", "[Errno 28] No space left on device", DISK),
        ("RuntimeError", "dictionary changed size during iteration", None),
        ("ValueError", "[Errno 11] in a message of the student's own", None),
        ("FileNotFoundError", "[Errno 2] No such file or directory: 'x'", None),
    ],
)
def test_a_refusal_is_told_from_other_errors(error, message, kind):
    assert limit_hit(error, message) == kind


def test_a_refusal_is_found_in_a_child_s_traceback():
    output = (
        'Process Process-3:\nTraceback (most recent call last):\n  File "x.py", line 1, in run\n'
        "    t.start()\nRuntimeError: can't start new thread\n"
    )
    assert limit_in_output(output) == (PROCESSES, "RuntimeError: can't start new thread")
    assert limit_in_output("Traceback (most recent call last):\nValueError: bad\n") is None
    blas = "OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 64: Resource temporarily unavailable"
    assert limit_in_output(f"{blas}\nOpenBLAS blas_thread_init: RLIMIT_NPROC 64 current, 64 max\n") == (
        PROCESSES,
        blas,
    )


@confined
def test_threads_past_the_budget_name_the_limit_as_one_fault(tmp_path):
    sub = write_submission(tmp_path / "sub", THREADS)
    with connect(sub, limits=Limits(nproc=40)) as bpe:
        assert bpe.threads(10) == 10  # within the budget
        with pytest.raises(RuntimeError) as info:
            bpe.threads(100)
        text = info.value.feedback()
        assert "threads(100) hit the limit of 40 processes and threads" in text, text
        assert "can't start new thread" in text and "endless loop" not in text
        assert info.value.cause == {
            "key": "limit: processes",
            "where": "threads",
            "summary": "your code hit the limit on processes and threads (40)",
            "one_fault": True,
        }


@confined
@pytest.mark.slow
def test_a_child_refused_while_its_parent_waits_is_a_limit_not_a_stall(tmp_path):
    sub = write_submission(tmp_path / "sub", THREADS)
    with connect(sub, limits=Limits(nproc=40)) as bpe:
        with pytest.raises(CallStalled) as info:
            bpe.child_threads(100)
        text = str(info.value)
        assert "child_threads(100) hit the limit of 40 processes and threads" in text, text
        assert "no CPU time" not in text and "waiting on" not in text
        assert info.value.cause["key"] == "limit: processes" and info.value.cause["one_fault"]


def test_the_handout_states_the_budget_the_sandbox_sets():
    from grader.paths import KIT_ROOT
    from grader.sandbox.options import NPROC

    limits = Limits()
    for handout in ("assignment/README.md", "assignment/zh/README.md"):
        text = (KIT_ROOT / handout).read_text(encoding="utf-8")
        assert f"{NPROC:,}" in text and limits.nproc == NPROC, handout
        assert f"{limits.memory_bytes // 2**30} GiB" in text and str(limits.open_files) in text, handout
