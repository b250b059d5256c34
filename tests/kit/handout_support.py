"""Shared by the starter, handout and lab tests: load starter/bpe and solution/bpe side by side,
read the handout's examples, run a lab.

Both packages are called `bpe`; each is imported here under its own name so that one pytest
process can compare them.
"""

from __future__ import annotations

import importlib.util
import os
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


# The handout in each of its languages (assignment/build.py's folders): English at the top of
# assignment/, each translation in its own folder with the English file names (plus its glossary).
LANGUAGES = ("en", "zh")
HANDOUTS = {
    "en": sorted((ROOT / "assignment").glob("*.md")),
    "zh": sorted((ROOT / "assignment" / "zh").glob("*.md")),
}
HANDOUT = HANDOUTS["en"]
ALL_HANDOUTS = [path for lang in LANGUAGES for path in HANDOUTS[lang]]
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(path: Path) -> list[tuple[str, str]]:
    """(file:line, code) for every ```python block of `path`, the exempt ones included."""
    text = path.read_text(encoding="utf-8")
    return [
        (f"{label(path)}:{text.count(chr(10), 0, m.start()) + 2}", m.group(1)) for m in FENCE.finditer(text)
    ]


def label(path: Path) -> str:
    """A handout file's name as messages give it: `part2_training.md`, `zh/part2_training.md`."""
    return path.relative_to(ROOT / "assignment").as_posix()


LOCALE = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def run_lab(
    name: str, submission=SOLUTION, *options: str, lang_env: str | None = None
) -> subprocess.CompletedProcess:
    """The lab as a student runs it; the locale is none (English) unless `lang_env` sets LANG."""
    env = {k: v for k, v in os.environ.items() if k not in LOCALE}
    if lang_env is not None:
        env["LANG"] = lang_env
    return subprocess.run(
        [sys.executable, "-m", "assignment.labs", name, "--submission", str(submission), *options],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
