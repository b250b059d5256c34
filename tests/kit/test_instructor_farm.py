"""The class farm: roster, shards, statuses, resume, merge and gradebook, against a fake grader."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import KIT
from instructor_fakes import make_submission

from grader.errors import RosterError, SubmissionError
from grader.farm import records
from grader.farm.batch import grade_all
from grader.farm.gradebook import write as write_gradebook
from grader.farm.merge import merge
from grader.farm.roster import discover, in_shard, parse_shard
from grader.farm.unpack import prepare

FAKE = f"{Path(__file__).parent / 'instructor_fakes.py'}:grade"


@pytest.fixture
def calls(tmp_path, monkeypatch):
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_GRADE_LOG", str(log))
    return lambda: log.read_text().split() if log.exists() else []


def run(subs, out, **kw):
    kw.setdefault("grade_fn", FAKE)
    return grade_all(subs, out, stream=io.StringIO(), **kw)


def class_of(root: Path, n: int) -> Path:
    subs = root / "subs"
    subs.mkdir()
    for i in range(n):
        make_submission(
            subs,
            f"s{i:03d}",
            points={"1.1": 10, "1.2": 20 * (i % 2), "3.1": 40 * (i % 3 == 0)},
            ratio=round(0.3 + 0.1 * i, 2),
            as_zip=i % 4 == 1,
        )
    return subs


def test_roster_ids_come_from_folder_and_zip_names(tmp_path):
    make_submission(tmp_path, "bob", as_zip=True)
    make_submission(tmp_path, "alice")
    (tmp_path / ".DS_Store").write_text("")
    assert [(e.student, e.path.name) for e in discover(tmp_path)] == [("alice", "alice"), ("bob", "bob.zip")]
    make_submission(tmp_path, "alice", as_zip=True)
    with pytest.raises(RosterError, match="alice"):
        discover(tmp_path)


@pytest.mark.parametrize("n", [1, 3, 7])
def test_shards_partition_the_sorted_roster_evenly(tmp_path, n):
    subs = class_of(tmp_path, 10)
    entries = discover(subs)
    shards = [[e.student for e in in_shard(entries, k, n)] for k in range(1, n + 1)]
    flat = sorted(s for shard in shards for s in shard)
    assert flat == [e.student for e in entries]
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    assert shards == [[e.student for e in in_shard(discover(subs), k, n)] for k in range(1, n + 1)]


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
        found = prepare(z, scratch)
        assert (found / "bpe" / "__init__.py").read_text() == "X = 1\n"


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


def test_statuses_separate_graded_grader_errors_and_unreadable(tmp_path, calls):
    subs = tmp_path / "subs"
    subs.mkdir()
    make_submission(subs, "ann", points={"1.1": 10, "2.1": 30})
    make_submission(subs, "ben", mode="crash")
    make_submission(subs, "cat", mode="hang")
    make_submission(subs, "dan", mode="garbage")
    (subs / "eve.zip").write_bytes(b"this is not a zip")
    (subs / "fay").mkdir()
    make_submission(subs, "gus", mode="refuse")
    recs = run(subs, tmp_path / "out", jobs=2, budget=5)
    status = {s: r["status"] for s, r in recs.items()}
    assert status == {
        "ann": "graded",
        "ben": "grader_error",
        "cat": "grader_error",
        "dan": "grader_error",
        "eve": "unreadable_submission",
        "fay": "unreadable_submission",
        "gus": "unreadable_submission",
    }
    assert recs["ann"]["score"] == 40 and recs["ann"]["max_score"] == 100
    assert "sandbox could not start" in recs["ben"]["message"]
    assert "budget" in recs["cat"]["message"]
    assert "not a readable zip" in recs["eve"]["message"]
    assert "more than 2000 files" in recs["gus"]["message"]
    assert sorted(calls()) == ["ann", "ben", "cat", "dan", "gus"]


def test_a_rerun_skips_graded_students_and_retries_errors(tmp_path, calls):
    subs = tmp_path / "subs"
    subs.mkdir()
    make_submission(subs, "ann", points={"1.1": 10})
    make_submission(subs, "ben", mode="crash")
    make_submission(subs, "cat", points={"1.2": 20})
    out = tmp_path / "out"
    first = run(subs, out)
    assert sorted(calls()) == ["ann", "ben", "cat"]
    second = run(subs, out)
    assert sorted(calls()) == ["ann", "ben", "ben", "cat"]  # only the grader error is retried
    assert second["ann"] == first["ann"]
    make_submission(subs, "cat", points={"1.2": 20, "1.1": 10})  # resubmitted: graded again
    third = run(subs, out)
    assert calls().count("cat") == 2 and third["cat"]["score"] == 30
    run(subs, out, force=True)
    assert calls().count("ann") == 2
    run(subs, out, grade_kwargs={"tests": "part1"})  # graded differently: everyone again
    assert calls().count("ann") == 3 and calls().count("cat") == 4


def test_an_interrupted_run_loses_nothing(tmp_path, calls):
    subs = tmp_path / "subs"
    subs.mkdir()
    for i in range(6):
        make_submission(subs, f"s{i}", points={"1.1": 10}, sleep=0.4)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "grader.farm", "grade", str(subs), "--out", str(out), "--grade-fn", FAKE]
    proc = subprocess.Popen(
        cmd, cwd=KIT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while len(records.read_records(out)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = records.read_records(out)
    assert 2 <= len(kept) < 6
    for rec_file in (out / "students").glob("*/record.json"):
        json.loads(rec_file.read_text())  # every record on disk is complete
    before = len(calls())
    rerun = run(subs, out)
    assert {r["status"] for r in rerun.values()} == {"graded"} and len(rerun) == 6
    assert len(calls()) - before == 6 - len(kept)
    assert all(rerun[s] == kept[s] for s in kept)


def test_progress_prints_plain_lines_when_not_a_tty(tmp_path):
    subs = class_of(tmp_path, 3)
    stream = io.StringIO()
    grade_all(subs, tmp_path / "out", grade_fn=FAKE, stream=stream)
    lines = stream.getvalue().splitlines()
    assert lines[:3] == [line for line in lines if line.startswith("[")] and "\r" not in stream.getvalue()
    assert lines[0].startswith("[1/3] s00") and "graded" in lines[0]
    assert lines[-1].startswith("done in") and "3 graded" in lines[-1]


def _strip_timing(out: Path) -> dict:
    recs = records.read_records(out)
    for r in recs.values():
        r.pop("timing")
    return recs


def test_shards_merged_equal_one_unsharded_run(tmp_path):
    subs = class_of(tmp_path, 11)
    whole = tmp_path / "whole"
    write_gradebook(whole, run(subs, whole, jobs=2))
    parts = []
    for k in (1, 2, 3):
        parts.append(tmp_path / f"part{k}")
        write_gradebook(parts[-1], run(subs, parts[-1], shard=(k, 3)))
    merged = tmp_path / "merged"
    rep = merge(parts, merged)
    assert rep.complete and not rep.duplicates and rep.students == 11
    assert (merged / "gradebook.csv").read_bytes() == (whole / "gradebook.csv").read_bytes()
    assert (merged / "grades.json").read_bytes() == (whole / "grades.json").read_bytes()
    assert _strip_timing(merged) == _strip_timing(whole)


def test_merge_reports_missing_and_duplicate_students(tmp_path):
    subs = class_of(tmp_path, 6)
    parts = [tmp_path / f"p{k}" for k in (1, 2, 3)]
    for k, p in enumerate(parts, 1):
        run(subs, p, shard=(k, 3))
    rep = merge([parts[0], parts[1]], tmp_path / "m1")
    assert rep.missing == ["s002", "s005"] and "shards missing: 3/3" in rep.problems[0]
    rep = merge([parts[0], parts[1], parts[2], parts[2]], tmp_path / "m2")
    assert set(rep.duplicates) == {"s002", "s005"} and not rep.missing and not rep.complete
    assert any("given more than once" in p for p in rep.problems)


def test_gradebook_has_a_row_per_student_and_a_column_per_test(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    make_submission(subs, "ann", points={"1.1": 10, "2.1": 30})
    make_submission(subs, "ben", mode="crash")
    out = tmp_path / "out"
    write_gradebook(out, run(subs, out))
    rows = list(csv.reader((out / "gradebook.csv").open()))
    assert rows[0] == ["student", "status", "total", "1.1 merge", "1.2 train", "2.1 encode", "3.1 speed"]
    assert rows[1] == ["ann", "graded", "40", "10", "0", "30", "0"]
    assert rows[2] == ["ben", "grader_error", "", "", "", "", ""]
    for f in (out / "gradebook.csv", out / "grades.json", out / "students/ann/record.json"):
        assert f.stat().st_mode & 0o044 == 0o044, f"{f.name} is not readable by the CI uploader"
    grades = json.loads((out / "grades.json").read_text())
    assert [s["student"] for s in grades["students"]] == ["ann", "ben"]
    assert "timing" not in json.dumps(grades)


def test_cli_reports_bad_input_in_one_line(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "grader.farm", "grade", str(tmp_path / "nope"), "--out", str(tmp_path / "o")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "nope" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "grader.farm", "merge", str(tmp_path), "--out", str(tmp_path / "m")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "not a farm output" in r.stderr


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_redraws_one_bar_on_a_terminal(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    make_submission(subs, "ann", points={"1.1": 10})
    make_submission(subs, "ben", mode="crash")
    stream = _Tty()
    grade_all(subs, tmp_path / "out", grade_fn=FAKE, stream=stream)
    out = stream.getvalue()
    assert out.count("\r\033[K[") == 2 and "] 2/2" in out
    assert "ben: grader_error: " in out  # problems get a line of their own above the bar
    assert out.rstrip().splitlines()[-1].startswith("done in")


def test_a_class_is_not_graded_without_the_sandbox_unless_asked(tmp_path, monkeypatch, capsys):
    import grader.farm.__main__ as farm_cli

    subs = tmp_path / "subs"
    make_submission(subs, "ann", points={"1.1": 10})
    monkeypatch.setattr(farm_cli, "isolation_level", lambda: "process-group")
    args = ["grade", str(subs), "--out", str(tmp_path / "out"), "--grade-fn", FAKE]
    assert farm_cli.main(args) != 0
    assert "needs root" in capsys.readouterr().err and not (tmp_path / "out" / "grades.json").exists()
    assert farm_cli.main(args + ["--allow-weak-isolation"]) == 0
    assert (tmp_path / "out" / "grades.json").exists()


@pytest.mark.parametrize(
    "flag", [["--budget", "-1"], ["--budget", "0"], ["--grade-kwargs", '{"timeout_total": 5}']]
)
def test_bad_farm_flags_are_one_line_errors(tmp_path, capsys, flag):
    import grader.farm.__main__ as farm_cli

    subs = tmp_path / "subs"
    make_submission(subs, "ann", points={"1.1": 10})
    assert farm_cli.main(["grade", str(subs), "--out", str(tmp_path / "out"), *flag]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
