"""dist/autograder.zip and run_autograder: always a results.json; 100 for the reference, 0 for the
starter, and a hostile submission neither escapes nor breaks the report."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sandboxed import run_sandboxed

from grader.errors import BundleError
from grader.paths import KIT_ROOT as KIT
from grader.release.gradescope import LOCK, build, grading_lock
from grader.release.gradescope import run_autograder as run_autograder_script

TEMPLATES = KIT / "grader/release/templates"


def fake_root(tmp_path: Path, submission: Path | None) -> Path:
    """An /autograder look-alike: submission/ (a copy of `submission`) and an empty results/."""
    root = tmp_path / "autograder"
    (root / "results").mkdir(parents=True)
    (root / "submission").mkdir()
    if submission is not None:
        if submission.is_file():
            shutil.copy(submission, root / "submission")
        else:
            shutil.copytree(submission, root / "submission", dirs_exist_ok=True)
    return root


def run_autograder(root: Path, *, source: Path, python: str = sys.executable, sandboxed=False, timeout=900):
    env = {
        **os.environ,
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_SOURCE": str(source),
        "AUTOGRADER_PYTHON": python,
    }
    argv = [
        "bash",
        str(
            source / "run_autograder"
            if (source / "run_autograder").exists()
            else TEMPLATES / "run_autograder"
        ),
    ]
    if sandboxed:
        proc = run_sandboxed(argv, env=env, timeout=timeout, cwd=root)
    else:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=root)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads((root / "results/results.json").read_text()), proc


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    dest = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    try:
        build(KIT, dest)
    except BundleError as e:
        pytest.skip(f"the kit cannot make a bundle yet: {e}")
    source = dest.parent / "source"
    with zipfile.ZipFile(dest) as z:
        z.extractall(source)
        modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
    for name in ("run_autograder", "setup.sh"):
        (source / name).chmod(modes[name] & 0o777)
    return dest, source, modes


@pytest.mark.parametrize("script", ["run_autograder", "setup.sh"])
def test_entry_scripts_are_valid_bash(script):
    subprocess.run(["bash", "-n", str(TEMPLATES / script)], check=True)


def test_without_python_a_results_json_still_says_what_happened(tmp_path):
    root = fake_root(tmp_path, KIT / "solution")
    results, _ = run_autograder(root, source=KIT, python=str(tmp_path / "no-such-python"))
    assert results["score"] == 0 and results["tests"] == []
    assert "problem on our side" in results["output"]
    assert "notified" not in results["output"] and "Nobody is told automatically" in results["output"]


def test_a_chinese_bundle_grades_in_chinese_and_falls_back_in_chinese(tmp_path):
    """`bpe-kit release gradescope --lang zh`: run_autograder passes the language to the grader, and
    its own words (when Python itself is what broke) are the catalogue's Chinese."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "run_autograder").write_bytes(run_autograder_script("zh"))
    assert b"LANGUAGE=zh " in (source / "run_autograder").read_bytes()
    subprocess.run(["bash", "-n", str(source / "run_autograder")], check=True)
    root = fake_root(tmp_path, KIT / "solution")
    results, _ = run_autograder(root, source=source, python=str(tmp_path / "no-such-python"))
    assert results["score"] == 0 and "自动评分器无法为这次提交评分" in results["output"]
    assert run_autograder_script("en") == (TEMPLATES / "run_autograder").read_bytes()  # English: as written
    (tmp_path / "empty").mkdir()
    root = fake_root(tmp_path / "zip", tmp_path / "empty")  # a submission with no bpe package in it
    r = subprocess.run(
        [sys.executable, "-m", "grader.gradescope", "--root", str(root), "--lang", "zh"],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    said = json.loads((root / "results/results.json").read_text())["output"]
    assert r.returncode == 0 and said.startswith("你的提交无法评分：submission：找不到 bpe 包"), said


def test_a_broken_grader_still_yields_a_results_json(tmp_path):
    broken = tmp_path / "source"
    (broken / "grader").mkdir(parents=True)
    (broken / "grader/__init__.py").write_text("raise ImportError('half-installed grader')\n")
    root = fake_root(tmp_path, KIT / "solution")
    results, _proc = run_autograder(root, source=broken)
    assert results["score"] == 0 and "problem on our side" in results["output"]
    # nothing notifies anyone: the message says what really happens
    assert "notified" not in results["output"] and "Nobody is told automatically" in results["output"]


@pytest.mark.parametrize("layout", ["empty", "two_packages"])
def test_a_submission_without_one_bpe_package_gets_told_how_to_submit(tmp_path, layout):
    sub = tmp_path / "sub"
    sub.mkdir()
    if layout == "two_packages":
        for d in ("a", "b"):
            shutil.copytree(KIT / "starter/bpe", sub / d / "bpe")
    results, _ = run_autograder(fake_root(tmp_path, sub), source=KIT)
    assert results["score"] == 0 and results["stdout_visibility"] == "visible"
    assert "make submission" in results["output"]


def test_the_bundle_has_entry_points_the_grading_lock_and_the_hidden_tests(bundle):
    _dest, source, modes = bundle
    for name in ("run_autograder", "setup.sh"):
        assert stat.S_IMODE(modes[name]) & 0o111, f"{name} is not executable in the zip"
    assert (source / LOCK).read_bytes() == (KIT / LOCK).read_bytes()
    hidden = sorted(p.relative_to(KIT) for p in (KIT / "tests/graded").rglob("test_hidden_*.py"))
    assert all((source / h).exists() for h in hidden)
    assert (source / "grader/rubric.toml").read_bytes() == (KIT / "grader/rubric.toml").read_bytes()
    assert not (source / "solution").exists()
    setup = (source / "setup.sh").read_text()
    assert f'--require-hashes -r "$SRC/{LOCK}"' in setup and "65534" in setup


def _kit_with_lock(tmp_path: Path, pin: str, lock: str | None) -> Path:
    kit = tmp_path / "kit"
    (kit / "requirements").mkdir(parents=True)
    (kit / "pyproject.toml").write_text(f'[project]\nname = "k"\ndependencies = ["{pin}"]\n')
    if lock is not None:
        (kit / LOCK).write_text(lock)
    return kit


@pytest.mark.parametrize(
    ("pin", "lock", "problem"),
    [
        ("Regex==1.0", None, "cannot read the grading lock"),
        ("Regex==1.0", "regex==0.9 \\\n    --hash=sha256:" + "0" * 64 + "\n", "run `make lock`"),
        ("Regex==1.0", "regex==1.0\n", "no hashes"),
        ("Regex>=1.0", "regex==1.0\n", "pinned with =="),
    ],
)
def test_a_missing_stale_or_unhashed_lock_makes_no_bundle(tmp_path, pin, lock, problem):
    with pytest.raises(BundleError, match=re.escape(problem)):
        grading_lock(_kit_with_lock(tmp_path, pin, lock))


def test_a_lock_with_pyprojects_pins_is_bundled_as_it_is(tmp_path):
    lock = "regex==1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n"
    assert grading_lock(_kit_with_lock(tmp_path, "Regex==1.0", lock)) == lock.encode()


def _zip_of_folder(folder: Path, dest: Path, prefix: str) -> Path:
    with zipfile.ZipFile(dest, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                z.write(p, prefix + p.relative_to(folder).as_posix())
    return dest


@pytest.mark.slow
def test_the_reference_scores_full_marks_even_zipped_in_a_folder(bundle, tmp_path):
    _dest, source, _ = bundle
    z = _zip_of_folder(KIT / "solution/bpe", tmp_path / "upload.zip", "my-work/bpe/")
    results, proc = run_autograder(fake_root(tmp_path, z), source=source)
    total = sum(t["max_score"] for t in results["tests"])
    assert results["score"] == total == 100, proc.stdout[-3000:]
    names = " ".join(t["name"] for t in results["tests"])
    assert results["tests"] and names
    assert_nothing_visible_gives_away_a_hidden_result(results)


def assert_nothing_visible_gives_away_a_hidden_result(results: dict) -> None:
    """Gradescope shows the total score under the top-level visibility, and `output` always: while
    any test with points is not visible, neither may reveal what the student got on it."""
    withheld = [t for t in results["tests"] if t["visibility"] != "visible" and t["max_score"]]
    visible = [t for t in results["tests"] if t["visibility"] == "visible"]
    assert withheld, "the kit's rubric has tests released after the due date"
    assert results["visibility"] in {t["visibility"] for t in withheld}
    assert results.get("stdout_visibility", "hidden") == "hidden"
    got = sum(t["score"] for t in visible)
    shown = sum(t["max_score"] for t in visible)
    assert results["output"].startswith(f"Visible tests: {got:g} / {shown:g}.")
    assert f"{results['score']:g} / 100" not in results["output"]
    assert (
        f"{100 - shown:g} more points are in tests whose results are shown after the due date"
        in results["output"]
    )


@pytest.mark.slow
def test_the_starter_scores_zero(bundle, tmp_path):
    _dest, source, _ = bundle
    results, proc = run_autograder(fake_root(tmp_path, KIT / "starter"), source=source)
    assert results["score"] == 0 and results["tests"], proc.stdout[-3000:]
    assert_nothing_visible_gives_away_a_hidden_result(results)
    not_impl = sum(
        t["output"].startswith("Not implemented yet")
        for t in results["tests"]
        if t["visibility"] == "visible"
    )
    if not_impl:  # only the visible tests are counted
        assert f" {not_impl} visible test(s) reach code that is not implemented yet." in results["output"]


def hostile_submission(name: str, dest: Path) -> Path:
    """Build the catalogue's hostile entry `name` into dest (skip when the catalogue cannot)."""
    try:
        import catalogue  # tests/submissions/ is on the path (pyproject's pytest pythonpath)

        catalogue.materialize(catalogue.by_name(name), dest)
    except Exception as e:
        pytest.skip(f"the catalogue cannot build {name} yet: {e}")
    return dest


@pytest.mark.slow
@pytest.mark.hostile
@pytest.mark.parametrize("name", ["kill_all"])  # kill(-1) from inside: the worst case for the wrapper
def test_a_hostile_submission_gets_a_results_json_and_leaves_the_bundle_alone(bundle, tmp_path, name):
    _dest, source, _ = bundle
    sub = hostile_submission(name, tmp_path / "hostile")
    before = {p: p.read_bytes() for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    results, _proc = run_autograder(fake_root(tmp_path, sub), source=source, sandboxed=True)
    assert isinstance(results["score"], (int, float)) and 0 <= results["score"] < 100
    assert results["tests"], results["output"]  # graded, not the infrastructure fallback
    after = {p: p.read_bytes() for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert after == before
