"""dist/handout.zip: everything a student needs, nothing hidden (checked by content), and it grades."""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from grader.release.handout import TOP, LeakError, build

KIT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def handout(tmp_path_factory):
    dest = tmp_path_factory.mktemp("handout") / "handout.zip"
    build(KIT, dest)
    with zipfile.ZipFile(dest) as z:
        files = {n.removeprefix(f"{TOP}/"): z.read(n) for n in z.namelist()}
    assert all(n.startswith(f"{TOP}/") for n in zipfile.ZipFile(dest).namelist())
    return dest, files


def _bodies(source: str) -> dict[str, str]:
    """ast dump of each function body (docstring dropped) -> function name."""
    out = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if (node.body and isinstance(node.body[0], ast.Expr)
                                     and isinstance(node.body[0].value, ast.Constant)) else node.body
            if body:
                out[ast.dump(ast.Module(body=body, type_ignores=[]))] = node.name
    return out


def test_the_student_gets_the_assignment_the_starter_the_public_tests_and_tools(handout):
    _, files = handout
    for need in ["assignment/README.md", "starter/bpe/__init__.py", "data/corpus.py", "Makefile", "README.md",
                 "grader/__init__.py", "pyproject.toml"]:
        assert need in files, need
    public_tests = {p.relative_to(KIT).as_posix() for p in (KIT / "tests/graded").rglob("*.py")
                    if not p.name.startswith("test_hidden_") and "__pycache__" not in p.parts}
    assert public_tests <= set(files)
    public_fixtures = {p.relative_to(KIT).as_posix() for p in (KIT / "data/fixtures").rglob("*")
                       if p.is_file() and "hidden" not in p.relative_to(KIT / "data/fixtures").parts}
    assert public_fixtures <= set(files)
    for name, data in files.items():
        if name.startswith("starter/bpe/"):
            assert data == (KIT / name).read_bytes()


def test_no_hidden_file_by_name(handout):
    _, files = handout
    bad = [n for n in files if re.search(r"(^|/)test_hidden_|^data/fixtures/hidden/|^solution/|__pycache__"
                                         r"|^grader/(release|farm)/|^grader/fixtures\.py$", n)]
    assert bad == []


def test_no_solution_code_by_content(handout):
    _, files = handout
    starter = {}
    for p in (KIT / "starter/bpe").glob("*.py"):
        starter |= _bodies(p.read_text())
    private = {}
    for p in (KIT / "solution/bpe").glob("*.py"):
        if p.exists():
            private |= {k: f"{p.name}:{v}" for k, v in _bodies(p.read_text()).items() if k not in starter}
    assert len(private) > 10  # the check below compares against something real
    for name, data in files.items():
        if name.endswith(".py"):
            copied = [private[b] for b in _bodies(data.decode()) if b in private]
            assert copied == [], f"{name} holds the body of {copied}"


def test_no_hidden_fixture_or_hidden_test_by_content(handout):
    _, files = handout
    hidden = [p for p in (KIT / "data/fixtures/hidden").rglob("*") if p.is_file()]
    public_lines = set()
    for p in (KIT / "data/fixtures/public").rglob("*"):
        if p.is_file():
            public_lines |= set(p.read_bytes().splitlines())
    blobs = list(files.values())
    for h in hidden:
        data = h.read_bytes()
        assert data not in blobs, f"{h} is in the handout under another name"
        own = [ln for ln in data.splitlines() if len(ln) >= 30 and ln not in public_lines]
        for ln in own[:5]:
            assert not any(ln in b for b in blobs), f"a line of {h} is in the handout"
    names = set()
    for p in (KIT / "tests/graded").rglob("test_hidden_*.py"):
        names |= set(re.findall(r"def (test_\w+)", p.read_text()))
    for p in (KIT / "tests/graded").rglob("*.py"):
        if not p.name.startswith("test_hidden_"):
            names -= set(re.findall(r"def (test_\w+)", p.read_text()))
    text = b"\n".join(blobs).decode("utf-8", "replace")
    assert [n for n in names if re.search(rf"\b{n}\b", text)] == []


def test_the_rubric_keeps_exactly_the_visible_entries(handout):
    _, files = handout
    kit_rubric = KIT / "grader/rubric.toml"
    if not kit_rubric.exists():
        pytest.skip("grader/rubric.toml not written yet")
    full = tomllib.loads(kit_rubric.read_text())["test"]
    got = tomllib.loads(files["grader/rubric.toml"].decode())["test"]
    assert got == [t for t in full if t.get("visibility", "visible") == "visible"]


def test_building_twice_gives_the_same_bytes(tmp_path):
    build(KIT, tmp_path / "a.zip")
    build(KIT, tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_the_command_writes_the_zip_or_says_in_one_line_why_not(tmp_path):
    r = subprocess.run([sys.executable, "-m", "grader.release", "handout", "--out", str(tmp_path / "h.zip")],
                       cwd=KIT, capture_output=True, text=True)
    assert r.returncode == 0 and "wrote" in r.stdout and zipfile.is_zipfile(tmp_path / "h.zip")
    (tmp_path / "dir.zip").mkdir()  # cannot be replaced by a file
    r = subprocess.run([sys.executable, "-m", "grader.release", "handout", "--out", str(tmp_path / "dir.zip")],
                       cwd=KIT, capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1


def _mini_kit(root: Path) -> Path:
    """A tiny kit with one of everything the scan knows about."""
    files = {
        "solution/bpe/core.py": "def merge(ids, pair, new_id):\n    out, i = [], 0\n    while i < len(ids):\n"
                                "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):\n"
                                "            out.append(new_id)\n            i += 2\n        else:\n"
                                "            out.append(ids[i])\n            i += 1\n    return out\n",
        "starter/bpe/__init__.py": "",
        "starter/bpe/core.py": "def merge(ids, pair, new_id):\n    raise NotImplementedError('merge')\n",
        "tests/graded/test_public.py": "def test_visible_thing(bpe):\n    assert True\n",
        "tests/graded/test_hidden_extra.py": "def test_secret_unicode_case(bpe):\n    assert True\n",
        "data/fixtures/hidden/corpus.txt": "".join(f"hidden sentence number {i} about a purple walrus\n" for i in range(8)),
        "data/fixtures/public/corpus.txt": "a public sentence that anybody may read\n",
        "data/corpus.py": "print('corpus')\n",
        "grader/__init__.py": "",
        "assignment/README.md": "# The assignment\n",
        "pyproject.toml": "[project]\nname = 'x'\ndependencies = []\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize("plant,where", [
    (lambda k: shutil.copy(k / "solution/bpe/core.py", k / "grader/helpers.py"), "private code"),
    (lambda k: (k / "assignment/hint.py").write_text(
        "def merge_hint(a, b, c):\n    out, i = [], 0\n    while i < len(a):\n"
        "        if i + 1 < len(a) and (a[i], a[i + 1]) == tuple(b):\n            out.append(c)\n"
        "            i += 2\n        else:\n            out.append(a[i])\n            i += 1\n    return out\n"),
     "private code"),
    (lambda k: (k / "data/fixtures/public/extra.txt").write_text((k / "data/fixtures/hidden/corpus.txt").read_text()),
     "hidden fixture"),
    (lambda k: (k / "assignment/README.md").write_text("See test_secret_unicode_case.\n"), "hidden test"),
])
def test_a_planted_leak_stops_the_build(tmp_path, plant, where):
    kit = _mini_kit(tmp_path / "kit")
    build(kit, tmp_path / "clean.zip")  # the mini kit itself is clean
    plant(kit)
    with pytest.raises(LeakError, match=where):
        build(kit, tmp_path / "leaky.zip")
    assert not (tmp_path / "leaky.zip").exists()


def test_a_hidden_rubric_entry_never_reaches_the_handout(tmp_path):
    kit = _mini_kit(tmp_path / "kit")
    (kit / "grader/rubric.toml").write_text(
        '# points\ntotal = 10\n\n[[test]]\nid = "test_public.py::test_visible_thing"\npoints = 4\n'
        'visibility = "visible"\n\n[[test]]\nid = "test_hidden_extra.py::test_secret_unicode_case"\n'
        'points = 6\nvisibility = "hidden"\n')
    files = build(kit, tmp_path / "h.zip")
    rubric = tomllib.loads(files["grader/rubric.toml"].decode())
    assert rubric["total"] == 10 and [t["points"] for t in rubric["test"]] == [4]
    assert b"secret" not in files["grader/rubric.toml"] and "# points" in files["grader/rubric.toml"].decode()


GRADER_READY = all((KIT / p).exists() for p in ("grader/api.py", "grader/__main__.py", "grader/rubric.toml"))


@pytest.mark.slow
@pytest.mark.skipif(not GRADER_READY, reason="the grader or its rubric (grader/rubric.toml) is not written yet")
def test_unzipped_handout_grades_the_starter_to_zero_with_not_implemented(handout, tmp_path):
    with zipfile.ZipFile(handout[0]) as z:
        z.extractall(tmp_path)
    root = tmp_path / TOP
    r = subprocess.run(["make", "grade", f"PY={sys.executable}"], cwd=root, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert not (root / ".venv").exists()  # PY= was honoured: nothing installed
    results = json.loads((root / "results/results.json").read_text())
    assert results["score"] == 0 and results["tests"]
    assert "not implemented" in (r.stdout + r.stderr).lower()
    assert all("not implemented" in t.get("output", "").lower() or t["score"] == 0 for t in results["tests"])
