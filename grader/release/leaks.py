"""Scan a would-be handout for anything hidden, by CONTENT as well as by name.

A file can leak under an innocent name (a hidden fixture pasted into a public one, a reference
function copied into the grader), so besides the paths this looks for: the code of the reference
solution and of the grader's trusted oracles (every sizeable statement inside their functions,
compared as syntax trees with names numbered, so reformatting or renaming does not hide it); the content of every hidden fixture; the
names of hidden tests; and rubric entries that are not visible.
"""

from __future__ import annotations

import ast
import copy
import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from ..terms import Visibility
from .contents import ORACLES, PUBLIC_PARTS, is_private

if TYPE_CHECKING:
    from collections.abc import Iterable

PRIVATE_CODE = ["solution/bpe/**/*.py", f"{ORACLES}/*.py"]  # the reference's extras/ too
MIN_STATEMENT = 60
# Published with GPT-2 and filled in for students in the starter: not a solution wherever it appears.
PUBLISHED = {
    "bytes_to_unicode",
    "unicode_to_bytes",
}  # characters of normalised source: shorter statements are too generic to tell


def _canonical(stmt: ast.stmt) -> str:
    """The statement's source with its names numbered by first use: renaming does not hide a copy."""
    stmt = copy.deepcopy(stmt)
    names: dict[str, str] = {}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            node.id = names.setdefault(node.id, f"v{len(names)}")
        elif isinstance(node, ast.arg):
            node.arg = names.setdefault(node.arg, f"v{len(names)}")
    return ast.unparse(stmt)


def _statements(source: str) -> set[str]:
    """Canonical source of every sizeable statement inside a function, docstrings left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name in PUBLISHED:
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.stmt) and node is not fn:
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                    continue
                text = _canonical(node)
                if len(text) >= MIN_STATEMENT:
                    found.add(text)
    return found


def private_statements(kit: Path) -> set[str]:
    """Statements of the private code that the public starter does not share."""
    private = set()
    for pattern in PRIVATE_CODE:
        for p in kit.glob(pattern):
            private |= _statements(p.read_text(encoding="utf-8", errors="replace"))
    public = set()
    for p in (kit / "starter").rglob("*.py"):
        public |= _statements(p.read_text(encoding="utf-8", errors="replace"))
    return private - public


class HiddenFixture:
    """What identifies one hidden fixture file: its bytes, and its long lines.

    Public and hidden fixtures legitimately share boilerplate (the 256 byte entries of a vocabulary,
    a common sentence of the generated corpus), so a handout file leaks a hidden fixture when it is
    the whole file (renamed or pasted in) or holds most of its long lines, not when a few coincide
    (two corpora from one generator share their commonest merges: a mistake's few long lines may).
    """

    MIN_LINE = 24
    MIN_LINES = 6  # fewer long lines than this say too little: such a file is judged by its body alone

    def __init__(self, rel: str, data: bytes) -> None:
        self.rel, self.data = rel, data
        self.lines = {ln.strip() for ln in data.splitlines() if len(ln.strip()) >= self.MIN_LINE}

    def found_in(self, blob: bytes) -> bool:
        body = self.data.strip()
        if len(body) >= 16 and body in blob:
            return True
        if len(self.lines) < self.MIN_LINES:
            return False
        present = {ln.strip() for ln in blob.splitlines()} & self.lines
        return len(present) >= max(3, len(self.lines) // 2)


def hidden_fixtures(kit: Path) -> list[HiddenFixture]:
    root = kit / "data/fixtures/hidden"
    return [
        HiddenFixture(p.relative_to(kit).as_posix(), p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    ]


def hidden_test_names(kit: Path) -> set[str]:
    def names(paths: Iterable[Path]):
        out = set()
        for p in paths:
            out |= set(re.findall(r"(?m)^\s*(?:async\s+)?def\s+(test_\w+)", p.read_text(errors="replace")))
        return out

    graded = kit / "tests/graded"
    hidden = list(graded.rglob("test_hidden_*.py"))
    public = [p for p in graded.rglob("*.py") if p not in hidden]
    found = names(hidden) - names(public)
    rubric = kit / "grader/rubric.toml"
    if rubric.exists():
        for t in tomllib.loads(rubric.read_text()).get("test", []):
            if t.get("visibility", Visibility.VISIBLE) != Visibility.VISIBLE:
                fn = str(t.get("id", "")).split("::")[-1].split("[")[0]
                if fn.startswith("test_") and fn not in names(public):
                    found.add(fn)
    return found


def scan(kit: Path, files: dict[str, bytes]) -> list[str]:
    """Every problem found in `files` (kit-relative name -> bytes); empty means nothing leaks."""
    problems = [
        f"{rel}: instructor-only file" for rel in files if is_private(rel) and rel not in PUBLIC_PARTS
    ]
    code = private_statements(kit)
    lines = {s for s in code if "\n" not in s}
    fixtures = hidden_fixtures(kit)
    names = hidden_test_names(kit)
    name_re = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b") if names else None
    for rel, data in sorted(files.items()):
        text = data.decode("utf-8", errors="replace")
        if rel.endswith(".py"):
            copied = _statements(text) & code
        else:
            flat = " ".join(text.split())
            copied = {s for s in lines if s in flat}
        for s in sorted(copied)[:3]:
            problems.append(f"{rel}: contains private code: {s[:90]!r}")
        for fx in fixtures:
            if fx.found_in(data):
                problems.append(f"{rel}: contains hidden fixture {fx.rel}")
                break
        if name_re and (m := name_re.search(text)):
            problems.append(f"{rel}: names hidden test {m.group(1)}")
        if rel == "grader/rubric.toml":
            for t in tomllib.loads(text).get("test", []):
                if t.get("visibility", Visibility.VISIBLE) != Visibility.VISIBLE:
                    problems.append(f"{rel}: entry {t.get('id')} is {t.get('visibility')}")
    return problems
