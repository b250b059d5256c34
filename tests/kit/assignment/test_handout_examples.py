"""Every Python example in the handout runs, against the reference solution.

Blocks fenced as ```python are examples; a block whose first line is a comment containing
"not run" is exempt (signature listings, snippets that need the student's finished code).
All examples run in one fresh interpreter, each in its own namespace, with the solution's `bpe`
and the kit's `data` package importable, in a scratch working directory: the English handout's and
each translation's (whose examples are the English ones: tests/kit/assignment/test_handout_languages.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from handout_support import HANDOUTS, LANGUAGES, ROOT, SOLUTION, python_blocks

RUNNER = r"""
import json, sys, traceback
blocks = json.loads(sys.stdin.read())
failed = 0
for where, code in blocks:
    try:
        exec(compile(code, where, "exec"), {"__name__": "__example__"})
    except BaseException:
        failed += 1
        print(f"--- {where} failed:\n{traceback.format_exc()}")
print(f"{len(blocks) - failed} of {len(blocks)} examples ran")
sys.exit(1 if failed else 0)
"""


def run_examples(blocks, cwd, *, pythonpath: str, timeout: float) -> subprocess.CompletedProcess:
    """Run the blocks in one fresh interpreter that sees only `pythonpath`, as a reader's would."""
    return subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(blocks),
        text=True,
        capture_output=True,
        cwd=cwd,
        timeout=timeout,
        env={"PYTHONPATH": pythonpath, "PATH": "/usr/bin:/bin"},
    )


def is_exempt(code: str) -> bool:
    first = code.lstrip().split("\n", 1)[0]
    return first.startswith("#") and "not run" in first


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_handout_has_runnable_examples_in_every_part(lang):
    for path in HANDOUTS[lang]:
        if path.name.startswith("part") and path.name != "part5_experiments.md":
            runnable = [code for _, code in python_blocks(path) if not is_exempt(code)]
            assert runnable, f"{path.name} has no runnable example"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_example_runs_against_the_solution(lang, tmp_path):
    blocks = [
        (where, code) for path in HANDOUTS[lang] for where, code in python_blocks(path) if not is_exempt(code)
    ]
    assert len(blocks) >= 15
    result = run_examples(blocks, tmp_path, pythonpath=f"{SOLUTION}:{ROOT}", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(blocks)} of {len(blocks)} examples ran" in result.stdout


def test_a_wrong_example_would_be_caught(tmp_path):
    """The runner really fails on a false assertion (so a passing run means something)."""
    blocks = [("fake.md:1", "from bpe import merge\nassert merge([1, 1, 1], (1, 1), 9) == [1, 9]")]
    result = run_examples(blocks, tmp_path, pythonpath=str(SOLUTION), timeout=60)
    assert result.returncode == 1 and "fake.md:1 failed" in result.stdout
