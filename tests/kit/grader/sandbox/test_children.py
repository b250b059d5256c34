"""A failing call says what failed: the child process that raised, was killed or could not import,
and, for a timeout, the call, the size of its input and the limit (grader/sandbox/call_words.py).

One toy submission whose functions fail through child processes, one toy suite calling each,
graded through the CLI inside `sandboxed.grade_sandboxed`; plus the pure functions on their own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from grader_toys import by_name, write_submission, write_suite
from sandboxed import grade_sandboxed

from grader.sandbox.call_words import (
    BUSY,
    OVERLOADED,
    WAITING,
    child_failure,
    child_note,
    describe_call,
    stall_kind,
    stall_words,
)

CHILDREN = """
import multiprocessing as mp
import os, signal, subprocess, sys, time
from concurrent.futures import ProcessPoolExecutor

# What a large library leaves at import (torch: hundreds of thousands of objects).
_IMPORTED = [[i] for i in range(200_000)]

def _collect_faults(_):
    import gc, resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    gc.collect()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

def pool_child_collects():  # pages a forked child copies when it collects garbage
    with mp.get_context("fork").Pool(1) as pool:
        return pool.map(_collect_faults, [0])[0]

def _boom(x):
    raise ValueError(f"child could not count chunk {x}")

def _die(x):
    os.kill(os.getpid(), signal.SIGKILL)

def _slow(x):
    return x

def pool_raises(method):
    with mp.get_context(method).Pool(2) as pool:
        return pool.map(_boom, [1, 2])

def pool_child_killed():
    with mp.get_context("fork").Pool(2) as pool:
        return pool.map(_die, [1, 2])   # a Pool waits for ever for the lost task

def executor_child_killed():
    with ProcessPoolExecutor(2, mp_context=mp.get_context("fork")) as ex:
        return list(ex.map(_die, [1, 2]))

def child_cannot_import():
    subprocess.run([sys.executable, "-c", "import no_such_module_here"])
    while True:
        time.sleep(0.05)   # then waits for an answer that never comes

def train_bpe(input_path, vocab_size, special_tokens):
    while True:
        pass

class BPETokenizer:
    def encode(self, text):
        while True:
            pass
"""

SUITE = """
from pathlib import Path

def test_pool_raises_fork(bpe):
    bpe.pool_raises("fork")

def test_pool_raises_spawn(bpe):
    bpe.pool_raises("spawn")

@pytest.mark.timeout(4)
def test_pool_child_killed(bpe):
    bpe.pool_child_killed()

def test_executor_child_killed(bpe):
    bpe.executor_child_killed()

@pytest.mark.timeout(4)
def test_child_cannot_import(bpe):
    bpe.child_cannot_import()

def test_fork_copies_no_import_heap(bpe):
    faults = bpe.pool_child_collects()
    assert faults < 1000, faults

@pytest.mark.timeout(3)
def test_train_forever(bpe, tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("low lower " * 100)
    bpe.train_bpe(path, 300, special_tokens=["<|endoftext|>"])

@pytest.mark.timeout(3)
def test_encode_forever(bpe):
    bpe.BPETokenizer().encode("hello world " * 1000)
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("children")
    sub = write_submission(tmp / "sub", CHILDREN)
    tests, rubric = write_suite(tmp, SUITE)
    proc = grade_sandboxed(sub, tmp / "out", tests_dir=tests, rubric=rubric)
    assert proc.returncode == 0, proc.stderr
    return by_name(json.loads((tmp / "out" / "results.json").read_text()))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("test_pool_raises_fork", "ValueError: child could not count chunk"),
        ("test_pool_raises_spawn", "ValueError: child could not count chunk"),
        ("test_pool_child_killed", "was killed by SIGKILL"),
        ("test_executor_child_killed", "BrokenProcessPool"),
        ("test_child_cannot_import", "ModuleNotFoundError: No module named 'no_such_module_here'"),
    ],
)
def test_a_child_failure_is_the_feedback(graded, name, words):
    test = graded[name]
    assert test["status"] == "failed"
    first = test["output"].split("Output of your code")[0]
    # A later test failing at the same line says "the same error as N (... ValueError at file:line: ...)"
    assert all(part in first for part in words.split(": ")), first


@pytest.mark.slow
def test_a_timeout_names_the_call_its_input_and_its_limit(graded):
    train = graded["test_train_forever"]["output"]
    assert "train_bpe(a file of 1,000 bytes, vocab_size=300, special_tokens=['<|endoftext|>'])" in train, (
        train
    )
    # the limit is the test's own 3 s
    assert re.search(
        r"did not answer in time: this test's own limit of 3 s of wall-clock time ran out", train
    ), train
    encode = graded["test_encode_forever"]["output"]
    assert "BPETokenizer.encode(text of 12,000 chars)" in encode, encode
    assert re.search(r"this test's own limit of 3 s of wall-clock time ran out", encode), encode


@pytest.mark.slow
def test_a_child_forked_by_the_first_call_does_not_copy_the_imported_heap(graded):
    """The heap the import left is frozen before any call (worker.settle_heap): a pool child's
    garbage collection does not walk it, so it copies none of it: 30 pages copied here, where it
    copied 3,900 before, and a CS336 trainer's pool of ten children with torch imported paid
    about a second more of CPU on its first call than on the next."""
    test = graded["test_fork_copies_no_import_heap"]
    assert test["status"] == "passed", test["output"]


def test_child_failure_reads_the_last_traceback_and_the_kill_note():
    spawn_child = (
        "Process SpawnPoolWorker-1:\nTraceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n    import bpe\n'
        "ModuleNotFoundError: No module named 'bpe'\n"
    )
    assert (
        child_failure(spawn_child) == "a child process failed with ModuleNotFoundError: No module named 'bpe'"
    )
    both = "printed by the student\n" + spawn_child + child_note(41, 9)
    assert child_failure(both).endswith(
        "(pid 41) was killed by SIGKILL (killed: usually the memory limit, or the CPU time limit)"
    )
    assert child_failure("just prints\nno trouble\n") is None


def test_describe_call_shows_short_values_and_sizes_long_ones(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 2048)
    assert describe_call("train_bpe", [Path(path), 500], {"special_tokens": []}) == (
        "train_bpe(a file of 2,048 bytes, vocab_size=500, special_tokens=[])"
    )
    assert describe_call("CharBPE.train", ["low lower", 4], {}) == "CharBPE.train('low lower', num_merges=4)"
    assert describe_call("unknown", [1, 2], {}) == "unknown(1, 2)"  # no names it does not know
    assert describe_call("BPETokenizer.encode", ["a" * 100], {}) == "BPETokenizer.encode(text of 100 chars)"
    chunks = {"i": ["ab", "cde"]}
    assert describe_call("BPETokenizer.encode_iterable", [iter([])], {}, [chunks]) == (
        "BPETokenizer.encode_iterable(an iterator of 2 chunks, 5 chars in all)"
    )


def test_stall_kind_tells_waiting_from_an_overloaded_machine_from_busy():
    """Figures (wall s, CPU s) as `WorkerProcess.cpu_samples` records them, every 0.5 s."""
    steps = [i * 0.5 for i in range(21)]  # 10 s of wall time
    waiting = [(t, min(t, 1.0) * 0.9) for t in steps]  # worked 1 s, then its CPU stood still
    overloaded = [(t, 0.15 * t) for t in steps]  # a steady 15% of a core: a saturated machine
    busy = [(t, 0.95 * t) for t in steps]  # a whole core all along
    assert stall_kind(waiting) == WAITING
    assert stall_kind(overloaded) == OVERLOADED
    assert stall_kind(busy) == BUSY
    assert stall_kind([(t, 0.0) for t in steps]) == WAITING  # a sleep from the start
    assert stall_kind([(0.0, 0.0)]) == BUSY  # too few figures to accuse it of waiting
    said = stall_words(OVERLOADED, 10.0, 1.5)
    assert "1.5 s of CPU time in 10.0 s" in said and "overloaded" not in said and "again" not in said
    assert "waiting on something" in stall_words(WAITING, 10.0, 0.9)
