"""The starter a handout ships: the committed one, with every graded stub still a stub.

A kit where someone filled in starter/ (to try the assignment) must not ship that work: the leak
scan compares with solution/ only, so a different but working answer would pass it. Two checks:
- in a git checkout, starter/ must be exactly what HEAD holds (no edit, no new file), and the
  handout packs HEAD's bytes;
- every public function of the packed starter, except the ones given to students, must have a body
  that is only `raise NotImplementedError(...)` (after its docstring): the packed starter grades 0.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from ..errors import StarterError

STARTER = "starter/bpe/"
# Given to students, working, in the starter (tests/kit/starter/test_starter_surface.py uses this list too).
GIVEN = {"bytes_to_unicode", "unicode_to_bytes", "CharBPE.__init__"}


def _git(kit: Path, *args: str) -> str | None:
    try:
        r = subprocess.run(["git", "-C", str(kit), *args], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.decode("utf-8", "surrogateescape") if r.returncode == 0 else None


def committed(kit: Path) -> dict[str, bytes] | None:
    """HEAD's starter/bpe files, or None when the kit is not a git checkout (a tarball)."""
    if _git(kit, "rev-parse", "--show-prefix") != "\n":  # not a checkout, or kit is not its top
        return None
    changed = _git(kit, "status", "--porcelain", "--untracked-files=all", "--", STARTER)
    if changed is None:
        return None
    junk = ("__pycache__/", ".pyc")
    changed = [line[3:] for line in changed.splitlines() if not any(j in line for j in junk)]
    if changed:
        raise StarterError(
            f"starter/ differs from the committed starter ({', '.join(changed[:5])}): "
            "commit it, or restore it with `git checkout -- starter/ && git clean -fd starter/`"
        )
    names = (_git(kit, "ls-tree", "-r", "--name-only", "HEAD", "--", STARTER) or "").split()
    out = {}
    for name in names:
        r = subprocess.run(["git", "-C", str(kit), "show", f"HEAD:{name}"], capture_output=True, timeout=60)
        out[name] = r.stdout
    return out


def _is_stub(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    plain = all(
        isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod") for d in fn.decorator_list
    )
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or not plain:
        return False
    exc = body[0].exc
    target = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(target, ast.Name) and target.id == "NotImplementedError"


def _functions(tree: ast.Module):
    """(qualified name, node) of every public top-level function and public class's method."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    not item.name.startswith("_") or item.name == "__init__"
                ):
                    yield f"{node.name}.{item.name}", item


def filled_in(files: dict[str, bytes]) -> list[str]:
    """'file: name' of every graded function of the starter that is not a NotImplementedError stub."""
    found = []
    for rel, data in sorted(files.items()):
        name = rel.removeprefix(STARTER)
        if not rel.startswith(STARTER) or not rel.endswith(".py") or name.startswith("_") or "/" in name:
            continue
        try:
            tree = ast.parse(data.decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError) as e:
            found.append(f"{rel}: cannot be read ({e})")
            continue
        found += [f"{rel}: {q}" for q, fn in _functions(tree) if q not in GIVEN and not _is_stub(fn)]
    return found


def check(files: dict[str, bytes]) -> None:
    bad = filled_in(files)
    if bad:
        raise StarterError(
            "the starter is filled in; every graded function must only raise NotImplementedError: "
            + "; ".join(bad[:5])
            + (f" (and {len(bad) - 5} more)" if len(bad) > 5 else "")
        )
