"""The student's loop: the same commands in the kit and the handout, and a handout that ships stubs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader import rubric
from grader.release import starter_check
from grader.release.handout import StarterError, build
from grader.release.rubric_filter import visible_only

KIT = Path(__file__).resolve().parents[2]
STUDENT_MAKEFILE = KIT / "grader/release/templates/student.Makefile"


def _package(parent: Path) -> Path:
    (parent / "bpe/__pycache__").mkdir(parents=True)
    (parent / "bpe/__init__.py").write_text("")
    (parent / "bpe/core.py").write_text("X = 1\n")
    (parent / "bpe/__pycache__/core.cpython-311.pyc").write_bytes(b"junk")
    return parent


@pytest.mark.parametrize("tree", ["kit", "handout"])
def test_make_submission_zips_the_bpe_package_in_both_trees(tree, tmp_path):
    sub = _package(tmp_path / "mine")
    dest = tmp_path / "submission.zip"
    if tree == "kit":
        argv = ["make", "-C", str(KIT), "-o", ".venv/.ok"]
    else:
        argv = ["make", "-f", str(STUDENT_MAKEFILE), "-C", str(KIT)]
    argv += ["submission", f"PY={sys.executable}", f"SUBMISSION={sub}", f"ZIP={dest}"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(zipfile.ZipFile(dest).namelist()) == ["bpe/__init__.py", "bpe/core.py"]
    assert "upload it to Gradescope" in r.stdout


def test_zip_of_a_folder_without_bpe_says_so_in_one_line(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "grader", "zip", str(tmp_path), "--out", str(tmp_path / "s.zip")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no bpe/ package" in r.stderr
    assert not (tmp_path / "s.zip").exists()


def test_the_handout_rubric_says_how_many_points_it_leaves_out(tmp_path):
    full = rubric.load(KIT / "grader/rubric.toml")
    hidden = sum(e.points for e in full if e.visibility != "visible")
    assert hidden > 0
    copy = tmp_path / "rubric.toml"
    copy.write_text(visible_only((KIT / "grader/rubric.toml").read_text()))
    assert rubric.withheld_points(copy) == hidden
    assert sum(e.points for e in rubric.load(copy)) + hidden == sum(e.points for e in full)
    assert rubric.withheld_points(KIT / "grader/rubric.toml") == 0


def _git_kit(root: Path) -> Path:
    files = {
        "starter/bpe/__init__.py": "",
        "starter/bpe/core.py": 'def merge(ids, pair, new_id):\n    """Doc."""\n    raise NotImplementedError("merge")\n',
        "grader/__init__.py": "",
        "assignment/README.md": "# The assignment\n",
        "pyproject.toml": "[project]\nname = 'x'\ndependencies = []\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git = ["git", "-C", str(root), "-c", "user.name=k", "-c", "user.email=k@k"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "kit"], check=True)
    return root


FILLED = "def merge(ids, pair, new_id):\n    return [new_id if i == pair[0] else i for i in ids]\n"


def test_the_handout_refuses_a_starter_that_differs_from_the_committed_one(tmp_path):
    kit = _git_kit(tmp_path / "kit")
    files = build(kit, tmp_path / "clean.zip")
    assert files["starter/bpe/core.py"] == (kit / "starter/bpe/core.py").read_bytes()
    (kit / "starter/bpe/core.py").write_text(FILLED)
    with pytest.raises(StarterError, match=r"differs from the committed starter \(starter/bpe/core.py\)"):
        build(kit, tmp_path / "edited.zip")
    (kit / "starter/bpe/core.py").write_text(files["starter/bpe/core.py"].decode())
    (kit / "starter/bpe/extra.py").write_text("x = 1\n")
    with pytest.raises(StarterError, match=r"starter/bpe/extra\.py"):
        build(kit, tmp_path / "new-file.zip")
    assert not (tmp_path / "edited.zip").exists() and not (tmp_path / "new-file.zip").exists()


def test_the_handout_refuses_a_committed_starter_that_is_filled_in(tmp_path):
    kit = _git_kit(tmp_path / "kit")
    (kit / "starter/bpe/core.py").write_text(FILLED)
    subprocess.run(
        ["git", "-C", str(kit), "-c", "user.name=k", "-c", "user.email=k@k", "commit", "-qam", "x"]
    )
    with pytest.raises(StarterError, match=r"filled in.*starter/bpe/core.py: merge"):
        build(kit, tmp_path / "filled.zip")
    assert not (tmp_path / "filled.zip").exists()


def test_the_command_refuses_a_filled_in_starter_in_one_line(tmp_path):
    kit = _git_kit(tmp_path / "kit")
    (kit / "starter/bpe/core.py").write_text(FILLED)
    code = (
        "import sys; from pathlib import Path; from grader.release import __main__ as m; "
        f"m.KIT = Path({str(kit)!r}); sys.exit(m.main(['handout', '--out', {str(tmp_path / 'h.zip')!r}]))"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=KIT, capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error: starter/ differs") and r.stderr.count("\n") == 1


def test_the_real_starter_is_all_stubs_and_the_solution_is_not():
    starter = {p.relative_to(KIT).as_posix(): p.read_bytes() for p in (KIT / "starter/bpe").glob("*.py")}
    assert starter_check.filled_in(starter) == []
    solution = {f"starter/bpe/{p.name}": p.read_bytes() for p in (KIT / "solution/bpe").glob("*.py")}
    found = starter_check.filled_in(solution)
    assert "starter/bpe/training.py: train_bpe" in found and "starter/bpe/char_bpe.py: merge" in found
    assert not any(given in f for f in found for given in starter_check.GIVEN)
