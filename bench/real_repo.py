"""How long a real course repository takes to grade: a CS336-layout submission whose package
imports torch, as real ones do (their model code is beside the tokenizer), and whose trainer runs
a process pool, graded as an instructor grades one (`grade --contract cs336 --python ...`).

Built from the kit's CS336 catalogue (tests/submissions/cs336: its reference layout), with
`import torch` added to the package and the trainer's work done in a `multiprocessing.Pool`.
Torch comes from `make bench` (pip's `torch==2.13.0`, the CPU build where the index has one);
`--torch-python` names another interpreter that has it. Without one the figure is not measured,
and says why.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import measure

ROOT = measure.ROOT
CATALOGUE = ROOT / "tests" / "submissions" / "cs336"


def torch_python(given: str | None) -> tuple[str | None, str | None]:
    """(an interpreter that imports torch, None) or (None, why there is none)."""
    candidates = [given] if given else [sys.executable]
    for python in candidates:
        probe = subprocess.run([python, "-c", "import torch"], capture_output=True, text=True)
        if probe.returncode == 0:
            return python, None
    return None, f"{candidates[0]} cannot import torch (`make bench` installs it; or --torch-python PATH)"


TRAIN_IN_A_POOL = '''"""`train_bpe` as CS336 asks for it, its work done in a process pool (fork, Linux's default)."""

import multiprocessing

from cs336_basics import bpe


def train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    with multiprocessing.Pool(2) as pool:
        return pool.apply(bpe.train_bpe, (input_path, vocab_size, list(special_tokens)))
'''


def build(dest: Path) -> Path:
    """The repository: the catalogue's CS336 reference, its package importing torch and its trainer
    working in a pool."""
    sys.path.insert(0, str(CATALOGUE))
    try:
        import cs336_catalogue
    finally:
        sys.path.remove(str(CATALOGUE))
    row = next(r for r in cs336_catalogue.load() if r.name == "cs336-reference")
    repo = cs336_catalogue.build(row, dest)
    init = repo / "cs336_basics" / "__init__.py"
    init.write_text(
        "import torch  # noqa: F401  (as a real repository's model code does)\n" + init.read_text()
    )
    (repo / "cs336_basics" / "train_bpe.py").write_text(TRAIN_IN_A_POOL)
    return repo


def run_real_repo(*, runs: int, students: int, jobs: int, timeout_s: float, python: str | None) -> dict:
    """A full grade of the repository (`runs` times: the median), and a class of `students` copies
    graded by the farm `jobs` at a time."""
    interpreter, why = torch_python(python)
    if interpreter is None:
        return {"note": f"not measured: {why}"}
    section: dict = {"python": interpreter}
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        repo = build(Path(tmp) / "repo")
        times = []
        for i in range(runs):
            out = Path(tmp) / f"out{i}"
            cmd = [sys.executable, "-m", "grader", "grade", "--contract", "cs336", str(repo)]
            cmd += ["--python", interpreter, "--out", str(out)]
            outcome, _status, _stderr = measure.run_process(cmd, timeout_s=timeout_s, memory=False)
            if not outcome.ok:
                return {"note": f"not measured: grading the repository failed: {outcome.error}"}
            times.append(outcome.wall_s)
            section["score"] = json.loads((out / "results.json").read_text())["score"]
        section.update(seconds=measure.median(times), all_seconds=times)
        section["farm"] = _farm(repo, Path(tmp), students, jobs, timeout_s, interpreter)
    return section


def _farm(repo: Path, tmp: Path, students: int, jobs: int, timeout_s: float, python: str) -> dict:
    import shutil

    subs = tmp / "class"
    for k in range(students):
        shutil.copytree(repo, subs / f"student{k:02d}")
    out = tmp / "farm"
    cmd = [sys.executable, "-m", "grader.farm", "grade", str(subs), "--out", str(out), "--jobs", str(jobs)]
    cmd += ["--contract", "cs336", "--python", python]
    outcome, _, _ = measure.run_process(cmd, timeout_s=timeout_s * students, memory=False)
    if not outcome.ok:
        return {"note": f"not measured: the farm failed: {outcome.error}"}
    return {
        "students": students,
        "jobs": jobs,
        "seconds": outcome.wall_s,
        "per_hour": students / outcome.wall_s * 3600,
    }
