"""Similarity on a class that all started from one skeleton: what everyone was given is subtracted,
so the ranking still puts the copies first (the kit's `starter/`, and a CS336 skeleton repository)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from staff_fakes import KIT, renamed

from grader.farm_cli import main as farm

pytest.importorskip("copydetect")

SOL = KIT / "solution/bpe"
# Each student's own work, on top of the skeleton: three independent ones and a renamed copy.
OWN = {
    "ann": (SOL / "training.py").read_text(),
    "ben": (SOL / "pretokenize.py").read_text(),
    "cat": (SOL / "char_bpe.py").read_text(),
    "dan": renamed((SOL / "char_bpe.py").read_text()),
}


def _skeleton(root: Path) -> Path:
    """A CS336-style skeleton repository: tests/adapters.py, the tests, a package of stubs."""
    files = {
        "tests/adapters.py": (KIT / "starter/bpe/tokenizer.py").read_text(),
        "tests/test_train_bpe.py": (KIT / "tests/graded/test_part2.py").read_text(),
        "tests/test_tokenizer.py": (KIT / "tests/graded/test_part3.py").read_text(),
        "cs336_basics/__init__.py": "",
        "cs336_basics/pretokenization_example.py": (KIT / "starter/bpe/pretokenize.py").read_text(),
        "README.md": "# CS336 assignment 1\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _ranked(out: Path) -> list[tuple[str, str, float]]:
    return [(r["a"], r["b"], float(r["similarity"])) for r in csv.DictReader((out / "similarity.csv").open())]


def test_a_cs336_class_built_on_one_skeleton_ranks_the_copy_first(tmp_path):
    skeleton = _skeleton(tmp_path / "assignment1-basics")
    subs = tmp_path / "subs"
    for student, code in OWN.items():
        repo = subs / student / "assignment1-basics"
        shutil.copytree(skeleton, repo)
        (repo / "cs336_basics/bpe.py").write_text(code)
        (repo / ".venv/lib").mkdir(parents=True)  # a virtual environment is never compared
        (repo / ".venv/lib/site.py").write_text(OWN["ann"])
    argv = ["similarity", str(subs), "--contract", "cs336", "--threshold", "0"]

    assert farm([*argv, "--out", str(tmp_path / "raw")]) == 0
    raw = _ranked(tmp_path / "raw")
    assert min(s for _, _, s in raw) > 0.5  # the skeleton alone makes every pair look alike

    assert farm([*argv, "--starter", str(skeleton), "--out", str(tmp_path / "sim")]) == 0
    ranked = _ranked(tmp_path / "sim")
    assert ranked[0][:2] == ("cat", "dan") and ranked[0][2] > 0.9
    assert all(s < 0.5 for _, _, s in ranked[1:]), ranked


def test_a_skeleton_that_is_no_cs336_repository_is_one_line(tmp_path, capsys):
    subs = tmp_path / "subs"
    _skeleton(subs / "ann")
    code = farm(
        [
            "similarity",
            str(subs),
            "--contract",
            "cs336",
            "--starter",
            str(KIT / "starter"),
            "--out",
            str(tmp_path / "o"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--starter" in err
