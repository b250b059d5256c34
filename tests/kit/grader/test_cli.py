"""`python -m grader grade`: one-line errors when it cannot grade, and the three report formats."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

import pytest
from grader_toys import by_name, write_submission, write_suite
from sandboxed import KIT_ROOT

from grader import api
from grader.errors import SubmissionError

SUITE = """
def test_trains(bpe):
    assert bpe.CharBPE.train("abab", 0).encode("ba") == [2, 1]

def test_merge_wrong(bpe):
    assert bpe.merge([1, 1, 1], (1, 1), 9) == [9, 1, 7]

def test_unknown_id(bpe):
    bpe.CharBPE.train("ab", 0).decode([42])

def test_stub(bpe):
    print("ignored: this print runs in the trusted test")
    bpe.train_bpe("corpus.txt", 300, [])

@pytest.mark.parametrize("text", ["ab", "ba", "x"])
def test_cases(bpe, text):
    assert 0 not in bpe.CharBPE.train("ab", 0).encode(text)

def test_notes(bpe, record_property):
    record_property("feedback", "a note for the student")
"""


def grade_cli(*args, cwd=KIT_ROOT):
    return subprocess.run(
        [sys.executable, "-m", "grader", "grade", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toy")
    sub = write_submission(tmp / "sub")
    tests, rubric = write_suite(tmp, SUITE, points=2)
    return sub, tests, rubric


@pytest.fixture(scope="module")
def graded(toy, tmp_path_factory):
    sub, tests, rubric = toy
    out = tmp_path_factory.mktemp("out")
    proc = grade_cli(sub, "--out", out, "--tests-dir", tests, "--rubric", rubric)
    assert proc.returncode == 0, proc.stderr
    return proc, out


def test_results_json_follows_gradescope_schema(graded):
    _, out = graded
    results = json.loads((out / "results.json").read_text())
    assert set(results) >= {"score", "execution_time", "output", "tests"}
    assert results["score"] == 4 and results["extra_data"]["max_score"] == 12
    for t in results["tests"]:
        # Gradescope's schema lets a test carry `extra_data`: here, the fault a failure was charged for.
        assert set(t) - {"extra_data"} == {
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "visibility",
            "output",
        }
        assert isinstance(t.get("extra_data", {}), dict)
        assert t["status"] in ("passed", "failed") and t["visibility"] == "visible"
    assert [t["number"] for t in results["tests"]] == ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]
    tests = by_name(results)
    assert tests["test_trains"]["score"] == 2 and tests["test_trains"]["output"] == ""
    assert "Right contains one more item: 7" in tests["test_merge_wrong"]["output"]
    assert tests["test_unknown_id"]["output"].startswith(
        "CharBPE.decode([42]) raised ValueError: unknown id 42"
    )
    assert 'File "bpe/__init__.py"' in tests["test_unknown_id"]["output"]
    assert tests["test_stub"]["output"].startswith("Not implemented yet")
    assert "ignored" not in tests["test_stub"]["output"]
    assert tests["test_cases"]["output"].startswith("1 of 3 cases failed; first: [x]")
    assert (
        tests["test_notes"]["status"] == "passed"
        and tests["test_notes"]["output"] == "a note for the student"
    )


def test_terminal_table_and_junit(graded):
    proc, out = graded
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["#", "test", "points", "status", "time"]
    row = next(line for line in lines if line.startswith("1.4 "))
    assert "0/2" in row and "not implemented" in row
    assert "--- 1.2 test_merge_wrong: failed" in proc.stdout
    assert "Total: 4 / 12" in proc.stdout
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite.get("tests") == "6" and suite.get("failures") == "4"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["1.4 test_stub"].find("failure").get("type") == "not implemented"
    assert cases["1.1 test_trains"].find("failure") is None


def test_grading_is_deterministic(toy, graded, tmp_path):
    sub, tests, rubric = toy
    _, first = graded
    again = api.grade(sub, tmp_path, tests_dir=tests, rubric=rubric)
    before = json.loads((first / "results.json").read_text())
    for results in (before, again):
        results.pop("execution_time")
    assert again == before


def test_fresh_workers_grade_as_forked_ones_do(toy, graded, tmp_path):
    """`--fresh-workers` starts a worker per test instead of forking each from one import
    (grader/sandbox/forked.py): slower, and the same grade, feedback included."""
    sub, tests, rubric = toy
    _, first = graded
    proc = grade_cli(sub, "--out", tmp_path, "--tests-dir", tests, "--rubric", rubric, "--fresh-workers")
    assert proc.returncode == 0, proc.stderr
    before, fresh = (json.loads((out / "results.json").read_text()) for out in (first, tmp_path))
    for results in (before, fresh):
        results.pop("execution_time")
    assert fresh == before


def test_tests_pattern_grades_a_subset(toy, tmp_path):
    sub, tests, rubric = toy
    results = api.grade(sub, tmp_path, tests=["trains", "notes"][0], tests_dir=tests, rubric=rubric)
    assert [t["name"] for t in results["tests"]] == ["test_trains"]


def test_zip_submission_with_a_top_folder(toy, tmp_path):
    sub, tests, rubric = toy
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(sub / "bpe" / "__init__.py", "alice/bpe/__init__.py")
    results = api.grade(archive, tmp_path / "out", tests_dir=tests, rubric=rubric)
    assert results["score"] == 4


def test_inprocess_never_writes_a_grade(toy, tmp_path):
    sub, tests, rubric = toy
    proc = grade_cli(sub, "--inprocess", "--out", tmp_path / "out", "--tests-dir", tests, "--rubric", rubric)
    assert proc.returncode == 0, proc.stderr
    assert "no grade was written" in proc.stdout and "Total: 4 / 12" in proc.stdout
    assert not (tmp_path / "out").exists()


def one_line_error(proc, *words):
    assert proc.returncode != 0 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: error: "), proc.stderr
    for w in words:
        assert w in lines[0]


def test_cli_errors_are_one_line(toy, tmp_path):
    sub, tests, rubric = toy
    common = ["--out", tmp_path / "out", "--tests-dir", tests]
    one_line_error(grade_cli(tmp_path / "missing", *common, "--rubric", rubric), "missing", "no such")
    (tmp_path / "empty").mkdir()
    one_line_error(grade_cli(tmp_path / "empty", *common, "--rubric", rubric), "no bpe package found")
    twice = tmp_path / "twice"
    for name in ("a", "b"):
        shutil.copytree(sub / "bpe", twice / name / "bpe")
    one_line_error(grade_cli(twice, *common, "--rubric", rubric), "more than one bpe package", "a/bpe, b/bpe")
    (tmp_path / "bad.zip").write_bytes(b"PK\x03\x04 not really a zip")
    one_line_error(grade_cli(tmp_path / "bad.zip", *common, "--rubric", rubric), "bad.zip")
    one_line_error(grade_cli(sub, *common, "--rubric", tmp_path / "nope.toml"), "nope.toml", "not found")
    partial = tmp_path / "partial.toml"
    partial.write_text(rubric.read_text().split("\n\n", 1)[1])
    one_line_error(grade_cli(sub, *common, "--rubric", partial), "no entry for test_toy.py::test_trains")


@pytest.mark.parametrize("member", ["../evil/bpe/__init__.py", "/abs/bpe/__init__.py"])
def test_unsafe_zips_are_refused(toy, tmp_path, member):
    _sub, tests, rubric = toy
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bpe/__init__.py", "")
        zf.writestr(member, "")
    with pytest.raises(SubmissionError, match="unsafe path"):
        api.grade(archive, tmp_path / "out", tests_dir=tests, rubric=rubric)
    assert not (tmp_path / "evil").exists()


def test_zip_bombs_are_refused(toy, tmp_path):
    _sub, tests, rubric = toy
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bpe/__init__.py", "")
        zf.writestr("bpe/padding.txt", b"\0" * (60 * 1024 * 1024))
    with pytest.raises(SubmissionError, match="MiB"):
        api.grade(archive, tmp_path / "out", tests_dir=tests, rubric=rubric)


FIXTURE_SUITE = """
@pytest.fixture
def tok(bpe):
    return bpe.CharBPE.train("abab", 0)

def test_handle_from_a_fixture(tok):
    assert tok.encode("ab") == [1, 2]

def test_next_test_has_a_fresh_worker(bpe):
    assert bpe.merge([1], (1, 1), 2) == [1]
"""


def test_objects_made_in_fixtures_live_through_their_test(tmp_path):
    sub = write_submission(tmp_path / "sub")
    tests, rubric = write_suite(tmp_path, FIXTURE_SUITE)
    results = api.grade(sub, tmp_path / "out", tests_dir=tests, rubric=rubric)
    assert results["score"] == 2, results["tests"]


def test_error_results_for_gradescope(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = grade_cli(tmp_path / "empty", "--out", tmp_path / "out", "--error-results")
    one_line_error(proc, "no bpe package found")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["score"] == 0 and "no bpe package found" in results["output"] and results["tests"] == []
