"""The class farm as an instructor runs it: `python -m grader.farm` on a small graded suite and fake
submissions (tests/kit/instructor_fakes.py), through the real grader and its sandbox.

Every grade the farm reports must be true: after a rubric change, an interrupted run, a partial
regrade, a budget overrun or a merge of shards.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from instructor_fakes import HANG_BUDGET, make_submission, write_suite

from grader.api import isolation_level
from grader.errors import RosterError, SubmissionError
from grader.farm import records
from grader.farm.batch import BUDGET_MARGIN, REFERENCE_SECONDS, default_budget
from grader.farm.roster import discover, in_shard, parse_shard
from grader.farm.unpack import prepare
from grader.paths import KIT_ROOT
from grader.sandbox.isolation import Isolation

KIT = KIT_ROOT
ALL = ["1.1", "1.2", "2.1", "3.1"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return write_suite(tmp_path_factory.mktemp("suite"))


def farm(*args, suite=None, budget=60, env=None, check=True) -> subprocess.CompletedProcess:
    """`python -m grader.farm ARGS` (grade runs get the toy suite and a budget)."""
    argv = [sys.executable, "-m", "grader.farm", *map(str, args)]
    if args[0] == "grade":
        tests, rubric = suite
        argv += ["--tests-dir", str(tests), "--rubric", str(rubric), "--budget", str(budget), "--jobs", "2"]
    r = subprocess.run(argv, cwd=KIT, capture_output=True, text=True, env=env, timeout=600)
    if check:
        assert r.returncode == 0, r.stderr[-3000:]
    return r


def gradebook(out: Path) -> dict[str, dict]:
    with (out / "gradebook.csv").open() as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def header(out: Path) -> list[str]:
    return (out / "gradebook.csv").read_text().splitlines()[0].split(",")


def record(out: Path, student: str) -> dict:
    rec = records.read_record(records.record_path(out, student))
    assert rec is not None, f"{student} has no complete record"
    return rec


# --- the roster ------------------------------------------------------------------------------


def test_roster_ids_come_from_folder_and_zip_names_sorted_case_insensitively(tmp_path):
    make_submission(tmp_path, "bob", as_zip=True)
    make_submission(tmp_path, "Alice")
    make_submission(tmp_path, "carl")
    (tmp_path / ".DS_Store").write_text("")
    (tmp_path / "notes.txt").write_text("grading notes")
    entries, strays = discover(tmp_path)
    assert [(e.student, e.path.name) for e in entries] == [
        ("Alice", "Alice"),
        ("bob", "bob.zip"),
        ("carl", "carl"),
    ]
    assert strays == ["notes.txt"]
    make_submission(tmp_path, "Alice", as_zip=True)
    with pytest.raises(RosterError, match="Alice"):
        discover(tmp_path)


@pytest.mark.parametrize("n", [1, 3, 7])
def test_shards_partition_the_sorted_roster_evenly(tmp_path, n):
    for i in range(10):
        make_submission(tmp_path, f"s{i:03d}")
    entries, _ = discover(tmp_path)
    shards = [[e.student for e in in_shard(entries, k, n)] for k in range(1, n + 1)]
    assert sorted(s for shard in shards for s in shard) == [e.student for e in entries]
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


@pytest.mark.parametrize("spec", ["0/3", "4/3", "1", "a/b", ""])
def test_bad_shard_specs_are_refused(spec):
    with pytest.raises(RosterError):
        parse_shard(spec)


def test_the_package_is_found_however_it_was_zipped(tmp_path):
    for i, (nest, flat) in enumerate([("", False), ("repo/starter/", False), ("", True), ("deep/er/", True)]):
        z = tmp_path / f"s{i}.zip"
        with zipfile.ZipFile(z, "w") as zf:
            prefix = nest if flat else nest + "bpe/"
            zf.writestr(prefix + "__init__.py", "X = 1\n")
            zf.writestr(prefix + "char_bpe.py", "")
            zf.writestr("__MACOSX/._junk", "")
        scratch = tmp_path / f"scratch{i}"
        scratch.mkdir()
        assert (prepare(z, scratch) / "bpe" / "__init__.py").read_text() == "X = 1\n"


@pytest.mark.parametrize(
    ("name", "writer", "reason"),
    [
        ("slip", lambda z: z.writestr("../evil/bpe/__init__.py", ""), "unsafe path"),
        ("empty", lambda z: z.writestr("README.txt", "hi"), "no bpe package"),
        (
            "two",
            lambda z: (z.writestr("a/bpe/__init__.py", ""), z.writestr("b/bpe/__init__.py", "")),
            "more than one",
        ),
    ],
)
def test_unusable_zips_are_unreadable_with_a_reason(tmp_path, name, writer, reason):
    z = tmp_path / f"{name}.zip"
    with zipfile.ZipFile(z, "w") as zf:
        writer(zf)
    with pytest.raises(SubmissionError, match=reason):
        prepare(z, tmp_path)
    assert not (tmp_path.parent / "evil").exists()


# --- statuses and the gradebook --------------------------------------------------------------


def test_statuses_say_what_happened_and_the_gradebook_keeps_every_column(tmp_path, suite):
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=["1.1", "2.1"])
    make_submission(subs, "Bob", points=ALL, as_zip=True)
    make_submission(subs, "cat", hang="1.2")  # passes nothing, never returns from 1.2
    (subs / "dan.zip").write_bytes(b"this is not a zip")
    (subs / "eve").mkdir()
    (subs / "notes.txt").write_text("not a student")
    out = tmp_path / "out"
    r = farm("grade", subs, "--out", out, suite=suite, budget=HANG_BUDGET)
    assert "ignored notes.txt" in r.stderr
    book = gradebook(out)
    assert list(book) == ["ann", "Bob", "cat", "dan", "eve"]  # no student "notes.txt"; case-insensitive
    assert header(out) == [
        "student",
        "status",
        "total",
        "stale",
        "seconds",
        "isolation",
        "kit",
        "reason",
        "1.1 merge",
        "1.2 train",
        "2.1 encode",
        "3.1 speed",
    ]
    assert {s: row["status"] for s, row in book.items()} == {
        "ann": "graded",
        "Bob": "graded",
        "cat": "timed_out",
        "dan": "unreadable_submission",
        "eve": "unreadable_submission",
    }
    assert book["ann"]["total"] == "40" and book["Bob"]["total"] == "100"
    assert [book["ann"][c] for c in header(out)[8:]] == ["10", "0", "30", "0"]
    # the overrun keeps the finished test and names the running one
    assert book["cat"]["1.1 merge"] == "0" and book["cat"]["1.2 train"] == ""
    assert (
        "while running 1.2 train" in book["cat"]["reason"]
        and f"{HANG_BUDGET} s budget" in book["cat"]["reason"]
    )
    assert book["dan"]["total"] == "0" and "not a readable zip" in book["dan"]["reason"]
    assert book["eve"]["total"] == "0" and "bpe" in book["eve"]["reason"]
    kit = book["ann"]["kit"]
    assert len(kit) == 16 and all(row["kit"] == kit for row in book.values())
    assert book["ann"]["isolation"] == isolation_level()  # what a worker gets here, as this user
    assert float(book["ann"]["seconds"]) > 0
    grades = json.loads((out / "grades.json").read_text())
    assert grades["tests"] == header(out)[8:]
    assert [s["student"] for s in grades["students"]] == list(book)
    assert [t for t, _ in grades["students"][0]["points"]] == [
        "1.1 merge",
        "1.2 train",
        "2.1 encode",
        "3.1 speed",
    ]
    for f in (out / "gradebook.csv", out / "grades.json", out / "students/ann/record.json"):
        assert f.stat().st_mode & 0o044 == 0o044, f"{f.name} is not readable by the CI uploader"


def test_tests_keep_rubric_order_in_every_file(tmp_path):
    tests, rubric = write_suite(tmp_path / "suite")
    rubric.write_text(rubric.read_text().replace('number = "2.1"', 'number = "1.10"'))
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    out = tmp_path / "out"
    farm("grade", subs, "--out", out, suite=(tests, rubric))
    want = ["1.1 merge", "1.2 train", "1.10 encode", "3.1 speed"]
    assert header(out)[8:] == want
    grades = json.loads((out / "grades.json").read_text())
    assert grades["tests"] == want and [t for t, _ in grades["students"][0]["points"]] == want
    assert [f"{t['number']} {t['name']}" for t in record(out, "ann")["tests"]] == want
    results = json.loads((out / "students/ann/results.json").read_text())
    assert [f"{t['number']} {t['name']}" for t in results["tests"]] == want


def test_a_grader_fault_is_a_one_line_grader_error(tmp_path):
    tests, rubric = write_suite(tmp_path / "suite")
    (tests / "conftest.py").write_text("raise ImportError('the graded suite is broken')\n")
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    out = tmp_path / "out"
    farm("grade", subs, "--out", out, suite=(tests, rubric))
    row = gradebook(out)["ann"]
    assert row["status"] == "grader_error" and row["total"] == ""
    assert "\n" not in row["reason"] and "the graded suite could not run" in row["reason"]


def test_a_rubric_whose_points_do_not_add_up_is_refused_in_one_line(tmp_path):
    tests, rubric = write_suite(tmp_path / "suite", points={"1.1": 11})  # 101 points, total = 100
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    r = farm("grade", subs, "--out", tmp_path / "out", suite=(tests, rubric), check=False)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "add up to 101" in r.stderr and "total = 100" in r.stderr and str(rubric) in r.stderr
    assert not (tmp_path / "out" / "gradebook.csv").exists()


def test_the_default_budget_is_a_wide_margin_over_the_reference_time():
    assert default_budget() >= BUDGET_MARGIN * REFERENCE_SECONDS >= 10 * 65


# --- stale results ---------------------------------------------------------------------------


def test_results_graded_by_another_kit_are_regraded_or_listed_as_stale(tmp_path):
    tests, rubric = write_suite(tmp_path / "suite")
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    out = tmp_path / "out"
    farm("grade", subs, "--out", out, suite=(tests, rubric))
    assert gradebook(out)["ann"]["1.1 merge"] == "10"
    write_suite(tmp_path / "suite", points={"1.1": 11, "3.1": 39})  # the rubric changes, total still 100

    r = farm("grade", subs, "--out", out, "--keep-stale", suite=(tests, rubric))
    assert "STALE" in r.stderr and "ann" in r.stderr
    row = gradebook(out)["ann"]
    assert row["stale"] == "STALE: 1.1 1.2 2.1 3.1" and row["1.1 merge"] == "10"
    assert "STALE" in (out / "report.html").read_text()

    r = farm("grade", subs, "--out", out, suite=(tests, rubric))
    assert "already graded" not in r.stderr and "STALE" not in r.stderr
    row = gradebook(out)["ann"]
    assert row["stale"] == "" and row["1.1 merge"] == "11" and row["3.1 speed"] == "39"
    assert "STALE" not in (out / "report.html").read_text()
    r = farm("grade", subs, "--out", out, suite=(tests, rubric))
    assert "1 already graded by this kit" in r.stderr  # current results are kept


# --- partial regrades ------------------------------------------------------------------------


def test_a_partial_regrade_merges_into_the_records_and_marks_mixed_fingerprints(tmp_path, suite):
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=["1.1"])
    make_submission(subs, "ben", points=["1.1", "2.1"])
    out = tmp_path / "out"
    farm("grade", subs, "--out", out, suite=suite)
    make_submission(subs, "ann", points=["1.1", "1.2"])  # ann resubmits
    farm("grade", subs, "--out", out, "--tests", "test_train", suite=suite)
    book = gradebook(out)
    assert header(out)[8:] == ["1.1 merge", "1.2 train", "2.1 encode", "3.1 speed"]
    assert [book["ben"][c] for c in header(out)[8:]] == ["10", "0", "30", "0"]
    assert book["ben"]["stale"] == "" and book["ben"]["total"] == "40"
    # ann: 1.2 from the new submission, the rest from the old one: marked stale, never silently mixed
    assert book["ann"]["1.2 train"] == "20" and book["ann"]["1.1 merge"] == "10"
    assert book["ann"]["stale"] == "STALE: 1.1 2.1 3.1"
    ben_run = record(out, "ben")["run"]
    farm("grade", subs, "--out", out, "--only", "ann", suite=suite)
    book = gradebook(out)
    assert book["ann"]["stale"] == "" and book["ann"]["total"] == "30"
    assert record(out, "ben")["run"] == ben_run  # --only left ben alone
    r = farm("grade", subs, "--out", out, "--only", "zed", suite=suite, check=False)
    assert r.returncode == 2 and "zed" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_student_graded_by_tests_only_is_incomplete_until_the_rest_is_graded(tmp_path, suite):
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    out = tmp_path / "out"
    r = farm("grade", subs, "--out", out, "--tests", "test_merge", suite=suite)
    row = gradebook(out)["ann"]
    assert row["status"] == "graded" and row["1.1 merge"] == "10" and row["2.1 encode"] == ""
    assert row["reason"].startswith("INCOMPLETE: not graded yet: 1.2 2.1 3.1")
    assert "INCOMPLETE" in r.stderr and "ann" in r.stderr
    farm("grade", subs, "--out", out, suite=suite)  # no --tests: the missing tests are graded
    row = gradebook(out)["ann"]
    assert row["total"] == "100" and row["reason"] == ""


def test_a_record_of_an_older_format_is_regraded_whole_and_says_why(tmp_path, suite):
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    out = tmp_path / "out"
    farm("grade", subs, "--out", out, suite=suite)
    path = records.record_path(out, "ann")
    old = {k: v for k, v in record(out, "ann").items() if k not in ("suite", "full_run")}
    path.write_text(json.dumps(dict(old, format=records.FORMAT - 1)))  # as an older farm wrote it
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(dict(manifest, format=records.FORMAT - 1)))
    r = farm("report", out, check=False)
    assert r.returncode == 2 and f"written by an older farm (format {records.FORMAT - 1}" in r.stderr
    (out / "manifest.json").write_text(json.dumps(manifest))
    farm("report", out)
    row = gradebook(out)["ann"]
    assert row["status"] == "not_graded" and row["total"] == ""
    assert f"older format ({records.FORMAT - 1}; this farm writes {records.FORMAT})" in row["reason"]
    r = farm("grade", subs, "--out", out, "--tests", "test_merge", suite=suite)
    assert "1 record(s) of an older format" in r.stderr and "regraded whole, --tests or not: ann" in r.stderr
    rec = record(out, "ann")
    assert rec["format"] == records.FORMAT and rec["full_run"] and len(rec["tests"]) == len(ALL)
    assert gradebook(out)["ann"]["total"] == "100"


# --- interrupted runs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, suite):
    root = tmp_path_factory.mktemp("klass")
    subs = root / "subs"
    for i, name in enumerate(["ann", "ben", "cat"]):
        make_submission(subs, name, points=ALL[: i + 1], sleep=0.5)
    out = root / "out"
    farm("grade", subs, "--out", out, suite=suite)
    return subs, out


def _survivors(mark: str, root: Path) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            environ = (proc / "environ").read_bytes()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if mark.encode() in environ or str(root).encode() in cmdline:
            argv = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{proc.name} ({_state(proc)}): {argv[:200]}")
    return found


def _state(proc: Path) -> str:
    """Its state and parent, from /proc/PID/stat (R running, S sleeping, D in the kernel, T stopped)."""
    try:
        fields = (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()
        return f"state {fields[0].decode()}, parent {fields[1].decode()}"
    except (OSError, IndexError):
        return "gone"


def _complete(out: Path, student: str) -> dict:
    """The student's folder holds one complete grading: record and results agree."""
    rec = record(out, student)
    results = json.loads((records.student_dir(out, student) / "results.json").read_text())
    assert results["score"] == rec["score"] and len(results["tests"]) == len(rec["tests"])
    assert (records.student_dir(out, student) / "grader.log").exists()
    return rec


def _pending(out: Path) -> bool:
    """The run has written down whom it set out to grade (manifest.json's `pending`)."""
    try:
        return bool(json.loads((out / "manifest.json").read_text())["pending"])
    except (OSError, ValueError, KeyError):
        return False


def _children(pid: int) -> list[str]:
    """The graded suites `pid` started (one per student it is grading: `python -m pytest`, through
    grader.farm.launch); not its other children (the namespaces probe, a calibration run)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        suite = b"\0-m\0pytest\0" in cmdline
        if proc.name.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == pid and suite:
            found.append(proc.name)
    return found


def _like_a_terminal() -> None:
    """The farm as a TA starts it, in the foreground: Ctrl-C (SIGINT) interrupts it. A test run
    started in the background by a shell (`make test &`, some CI runners) ignores SIGINT, and its
    children would inherit that, finish grading and exit 0."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _await(proc: subprocess.Popen, what: str, ready) -> None:
    """Wait for a state on disk or a started process, never for a moment read from the clock: the
    run must still be going when it is reached, or the test would interrupt nothing."""
    deadline = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None, f"the run ended before {what}: nothing was interrupted"
        assert time.monotonic() < deadline, f"no sign within 120 s that {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
@pytest.mark.parametrize("when", ["while grading", "after a commit"])
def test_an_interrupted_run_loses_nothing_and_invents_nothing(tmp_path, suite, graded_class, sig, when):
    subs, graded = graded_class
    out = tmp_path / "out"
    shutil.copytree(graded, out, symlinks=True)
    before = {s: _complete(out, s) for s in ("ann", "ben", "cat")}
    tests, rubric = suite
    mark = uuid.uuid4().hex
    argv = [sys.executable, "-m", "grader.farm", "grade", subs, "--out", out, "--force", "--budget", 60]
    argv += ["--tests-dir", tests, "--rubric", rubric, "--jobs", "2"]
    # The farm's scratch in a TMPDIR of the test's own (as a cluster's node-local scratch would be):
    # a farm killed by SIGKILL cannot remove it, and the machine's /tmp keeps nothing of the test.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.Popen(
        list(map(str, argv)),
        cwd=KIT,
        env={**os.environ, "FARM_TEST_MARK": mark, "TMPDIR": str(scratch)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_like_a_terminal,
    )
    if when == "while grading":  # the run wrote whom it set out to grade, and a student's suite started
        _await(proc, "a student's suite started", lambda: _pending(out) and _children(proc.pid))
    else:
        _await(
            proc,
            "a student's new grading was committed",
            lambda: any(
                record(out, s)["run"] != before[s]["run"]
                for s in before
                if records.read_record(records.record_path(out, s))
            ),
        )
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    t0 = time.monotonic()
    while _survivors(mark, tmp_path) and time.monotonic() - t0 < 5:
        time.sleep(0.1)
    assert _survivors(mark, tmp_path) == [], "a process of the run outlived it"
    if sig == signal.SIGKILL:
        farm("report", out)
    else:
        assert "interrupted" in err and "Traceback" not in err
    book = gradebook(out)
    for s in before:
        rec = _complete(out, s)  # the complete previous grading, or the complete new one
        assert rec["status"] == "graded"
        if rec["run"] == before[s]["run"]:
            assert rec == before[s] and book[s]["status"] == "interrupted"
        else:
            assert book[s]["status"] == "graded"
    assert "grader_error" not in (out / "gradebook.csv").read_text()
    unfinished = [s for s in before if record(out, s)["run"] == before[s]["run"]]
    assert unfinished, "the run finished before it was interrupted: nothing was tested"
    farm("grade", subs, "--out", out, suite=suite)  # no --force: the interrupted run's is remembered
    book = gradebook(out)
    for s in before:
        assert _complete(out, s)["run"] != before[s]["run"], f"{s} was not regraded"
        assert book[s]["status"] == "graded"


# --- merging shards --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    root = tmp_path_factory.mktemp("merge")
    subs = root / "subs"
    make_submission(subs, "ann", points=["1.1"])
    make_submission(subs, "Bob", points=["1.1", "1.2"])
    make_submission(subs, "cat", points=ALL)
    return root, subs


def test_overlapping_outputs_merge_with_the_latest_grading_named(klass, suite):
    root, subs = klass
    a, b, m = root / "a", root / "b", root / "m"
    farm("grade", subs, "--out", a, "--only", "ann", "Bob", suite=suite)
    farm("grade", subs, "--out", b, "--only", "Bob", "cat", suite=suite)
    r = farm("merge", a, b, "--out", m)
    assert f"duplicate: Bob is in {a}, {b}; kept the latest grading, from {b}" in r.stdout
    book = gradebook(m)
    assert {s: row["total"] for s, row in book.items()} == {"ann": "10", "Bob": "30", "cat": "100"}
    assert record(m, "Bob")["run"] == record(b, "Bob")["run"]


def test_a_merge_with_problems_writes_nothing_and_names_every_problem(klass, suite, tmp_path):
    _, subs = klass
    s1, s2 = tmp_path / "s1", tmp_path / "s2"
    farm("grade", subs, "--out", s1, "--shard", "1/3", suite=suite)
    tests, rubric = write_suite(tmp_path / "suite2", points={"1.1": 5, "3.1": 45})
    farm("grade", subs, "--out", s2, "--shard", "2/3", suite=(tests, rubric))
    m = tmp_path / "m"
    r = farm("merge", s1, s2, "--out", m, check=False)
    assert r.returncode == 1
    kit1, kit2 = (json.loads((p / "manifest.json").read_text())["kit"] for p in (s1, s2))
    assert kit1 != kit2
    assert f"{s1} by kit {kit1}" in r.stderr and f"{s2} by kit {kit2}" in r.stderr
    assert "shards missing: 3/3" in r.stderr and "missing (1): cat" in r.stderr
    assert "nothing written" in r.stderr and not m.exists()


def test_cli_reports_bad_input_in_one_line(tmp_path):
    r = farm("grade", tmp_path / "nope", "--out", tmp_path / "o", suite=("x", "y"), check=False)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "nope" in r.stderr
    r = farm("merge", tmp_path, "--out", tmp_path / "m", check=False)
    assert r.returncode == 2 and "not a farm output" in r.stderr


@pytest.mark.parametrize("flag", [["--budget", "-1"], ["--budget", "0"], ["--jobs", "0"]])
def test_bad_farm_flags_are_one_line_errors(tmp_path, flag):
    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    r = subprocess.run(
        [sys.executable, "-m", "grader.farm", "grade", str(subs), "--out", str(tmp_path / "out"), *flag],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_class_is_not_graded_without_the_sandbox_unless_asked(tmp_path, monkeypatch, capsys):
    import grader.farm_cli as farm_cli

    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    monkeypatch.setattr(farm_cli, "isolation_level", lambda: Isolation.PROCESS_GROUP)
    why = "this kernel refuses ordinary users a user namespace (`sysctl user.max_user_namespaces=15000` allows it)"
    monkeypatch.setattr(farm_cli, "namespaces_refused", lambda: why)
    assert farm_cli.main(["grade", str(subs), "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert "needs namespaces" in err and why in err and "--allow-weak-isolation" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_class_is_not_graded_with_the_users_privileged_groups_unless_asked(tmp_path, monkeypatch, capsys):
    """An ordinary user's workers keep its supplementary groups: a TA in `docker` or `disk` would
    hand students' code what those open, so the farm refuses, naming the groups."""
    import grader.farm_cli as farm_cli

    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    monkeypatch.setattr(farm_cli, "isolation_level", lambda: Isolation.USERNS)
    monkeypatch.setattr(farm_cli, "kept_groups", lambda: ["disk", "docker"])
    assert farm_cli.main(["grade", str(subs), "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert "disk, docker" in err and "--allow-weak-isolation" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_class_is_graded_with_the_users_ordinary_groups_and_says_so(tmp_path, monkeypatch, capsys):
    """A course group (a cluster account is seldom in none) opens nothing of the host that the mount
    plan leaves: the farm grades, and says once which groups the students' code keeps."""
    import grader.farm_cli as farm_cli
    from grader.errors import RosterError

    subs = tmp_path / "subs"
    make_submission(subs, "ann", points=ALL)
    graded = []
    monkeypatch.setattr(farm_cli, "isolation_level", lambda: Isolation.USERNS)
    monkeypatch.setattr(farm_cli, "kept_groups", lambda: ["cs336-staff", "users"])
    monkeypatch.setattr(farm_cli, "grade_all", lambda *a, **k: graded.append(a))
    monkeypatch.setattr(
        farm_cli, "output_records", lambda out: (_ for _ in ()).throw(RosterError("stop here"))
    )
    farm_cli.main(["grade", str(subs), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert graded, err
    assert "cs336-staff, users" in err and "kept_groups" in err
