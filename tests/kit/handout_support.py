"""Shared by the starter, handout and lab tests: load starter/bpe and solution/bpe side by side,
read the handout's examples, run a lab.

Both packages are called `bpe`; each is imported here under its own name so that one pytest
process can compare them.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "starter"
SOLUTION = ROOT / "solution"
PUBLIC_MODULES = ["char_bpe", "gpt2_bytes", "pretokenize", "tokenizer", "training"]


def load(folder: Path, alias: str):
    """Import folder/bpe as the package `alias` (cached in sys.modules)."""
    if alias in sys.modules:
        return sys.modules[alias]
    init = folder / "bpe" / "__init__.py"
    spec = importlib.util.spec_from_file_location(alias, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module


def starter():
    return load(STARTER, "bpe_starter_kit")


def solution():
    return load(SOLUTION, "bpe_solution_kit")


def submodule(package, name: str):
    return sys.modules[f"{package.__name__}.{name}"]


HANDOUT = sorted((ROOT / "assignment").glob("*.md"))
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(path: Path) -> list[tuple[str, str]]:
    """(file:line, code) for every ```python block of `path`, the exempt ones included."""
    text = path.read_text(encoding="utf-8")
    return [
        (f"{path.name}:{text.count(chr(10), 0, m.start()) + 2}", m.group(1)) for m in FENCE.finditer(text)
    ]


def run_lab(name: str, submission=SOLUTION) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "assignment.labs", name, "--submission", str(submission)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
