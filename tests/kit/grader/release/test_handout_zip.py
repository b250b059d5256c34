"""dist/handout.zip: everything a student needs, nothing hidden (checked by content), and it grades."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import catalogue
import pytest

from grader.errors import LeakError, TranslationError
from grader.paths import KIT_ROOT as KIT
from grader.release.contents import ORACLES, is_private
from grader.release.handout import TEMPLATES, TOP, build
from grader.release.translate import translated_makefile

# What would let a student copy a working Part 1-3: never defined anywhere in the handout but the stubs.
# (Plain `encode`/`merge` are left out: the grader's wire format and outcomes have their own.)
GRADED_NAMES = {
    "train",
    "train_bpe",
    "encode_iterable",
    "CharBPE",
    "BPETokenizer",
    "TrustedEncoder",
    "Replay",
    "count_pairs",
    "pretokens",
    "merge_word",
}


def _oracles() -> list[Path]:
    """The grader's private oracles: every module under the one private glob, ORACLES."""
    assert ORACLES == "grader/oracles/**"
    return sorted((KIT / "grader/oracles").rglob("*.py"))


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
            body = (
                node.body[1:]
                if (
                    node.body
                    and isinstance(node.body[0], ast.Expr)
                    and isinstance(node.body[0].value, ast.Constant)
                )
                else node.body
            )
            if body:
                out[ast.dump(ast.Module(body=body, type_ignores=[]))] = node.name
    return out


def test_the_student_gets_the_assignment_the_starter_the_public_tests_and_tools(handout):
    _, files = handout
    for need in [
        "assignment/README.md",
        "starter/bpe/__init__.py",
        "data/corpus.py",
        "Makefile",
        "README.md",
        "grader/__init__.py",
        "pyproject.toml",
        "requirements/grading.txt",
    ]:
        assert need in files, need
    public_tests = {
        p.relative_to(KIT).as_posix()
        for p in (KIT / "tests/graded").rglob("*.py")
        if not p.name.startswith("test_hidden_") and "__pycache__" not in p.parts
    }
    assert public_tests <= set(files)
    public_fixtures = {
        p.relative_to(KIT).as_posix()
        for p in (KIT / "data/fixtures").rglob("*")
        if p.is_file() and "hidden" not in p.relative_to(KIT / "data/fixtures").parts
    }
    assert public_fixtures <= set(files)
    times = json.loads(files["data/fixtures/test_times.json"])["tests"]  # per-test limits, public part
    assert times and not [t for t in times if "hidden" in t]
    for name, data in files.items():
        if name.startswith("starter/bpe/"):
            assert data == (KIT / name).read_bytes()


def test_no_hidden_file_by_name(handout):
    _, files = handout
    bad = [
        n
        for n in files
        if re.search(
            r"(^|/)test_hidden_|^data/fixtures/hidden/|^solution/|__pycache__"
            r"|^grader/(release|farm|oracles)/|^grader/gradescope\.py$",
            n,
        )
    ]
    assert bad == []
    oracles = _oracles()
    assert len(oracles) >= 5 and all(is_private(o.relative_to(KIT).as_posix()) for o in oracles)
    assert [n for n in files if n.startswith("grader/oracles/")] == []


def test_no_trainer_or_encoder_outside_the_stubs(handout):
    """Only the starter's stubs define the graded functions; the graded tests read stored answers."""
    _, files = handout
    defined = {}
    for name, data in files.items():
        if name.endswith(".py") and not name.startswith("starter/"):
            for node in ast.walk(ast.parse(data.decode())):
                if (
                    isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and node.name in GRADED_NAMES
                ):
                    defined.setdefault(name, []).append(node.name)
    assert defined == {}
    stubs = [
        n for n, d in files.items() if n.startswith("starter/bpe/") and b"raise NotImplementedError" in d
    ]
    assert len(stubs) >= 4  # the names above do exist, as stubs


def test_no_solution_code_by_content(handout):
    _, files = handout
    starter = {}
    for p in (KIT / "starter/bpe").glob("*.py"):
        starter |= _bodies(p.read_text())
    private = {}
    for p in [*(KIT / "solution/bpe").glob("*.py"), *_oracles()]:
        if p.exists():
            private |= {k: f"{p.name}:{v}" for k, v in _bodies(p.read_text()).items() if k not in starter}
    assert len(private) > 10  # the check below compares against something real
    assert any(v.startswith("trainer.py:") for v in private.values())
    for name, data in files.items():
        if name.endswith(".py"):
            copied = [private[b] for b in _bodies(data.decode()) if b in private]
            assert copied == [], f"{name} holds the body of {copied}"


def test_no_hidden_fixture_or_hidden_test_by_content(handout):
    _, files = handout
    hidden = [p for p in (KIT / "data/fixtures/hidden").rglob("*") if p.is_file()]
    # Public and hidden corpora come from one generator: a hidden line that public fixtures already
    # hold (e.g. a common phrase inside a longer merge line) proves nothing.
    public = b"\n".join(p.read_bytes() for p in (KIT / "data/fixtures/public").rglob("*") if p.is_file())
    blobs = list(files.values())
    for h in hidden:
        data = h.read_bytes()
        assert data not in blobs, f"{h} is in the handout under another name"
        own = [ln for ln in data.splitlines() if len(ln) >= 30 and ln not in public]
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
    r = subprocess.run(
        [sys.executable, "-m", "grader.release", "handout", "--out", str(tmp_path / "h.zip")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "wrote" in r.stdout and zipfile.is_zipfile(tmp_path / "h.zip")
    (tmp_path / "dir.zip").mkdir()  # cannot be replaced by a file
    r = subprocess.run(
        [sys.executable, "-m", "grader.release", "handout", "--out", str(tmp_path / "dir.zip")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1


def _mini_kit(root: Path) -> Path:
    """A tiny kit with one of everything the scan knows about."""
    files = {
        "solution/bpe/core.py": "def merge(ids, pair, new_id):\n    out, i = [], 0\n    while i < len(ids):\n"
        "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):\n"
        "            out.append(new_id)\n            i += 2\n        else:\n"
        "            out.append(ids[i])\n            i += 1\n    return out\n",
        "solution/bpe/extras/cuts.py": "def first_cut(data, token, guess):\n"
        "    found = [i for i in range(guess, len(data)) if data.startswith(token, i) and i % 2 == 0]\n"
        "    return found[0] if found else len(data)\n",
        "grader/oracles/trainer.py": "def train(words, pair):\n    out = []\n    for tokens, freq in words:\n"
        "        merged = [t for t in tokens if t != pair]\n"
        "        out.append((merged + [pair[0] + pair[1]], freq * len(tokens)))\n"
        "    return out\n",
        "starter/bpe/__init__.py": "",
        "starter/bpe/core.py": "def merge(ids, pair, new_id):\n    raise NotImplementedError('merge')\n",
        "tests/graded/test_public.py": "def test_visible_thing(bpe):\n    assert True\n",
        "tests/graded/test_hidden_extra.py": "def test_secret_unicode_case(bpe):\n    assert True\n",
        "data/fixtures/hidden/corpus.txt": "".join(
            f"hidden sentence number {i} about a purple walrus\n" for i in range(8)
        ),
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


@pytest.mark.parametrize(
    ("plant", "where"),
    [
        (lambda k: shutil.copy(k / "solution/bpe/core.py", k / "grader/helpers.py"), "private code"),
        (lambda k: shutil.copy(k / "solution/bpe/extras/cuts.py", k / "grader/cuts.py"), "private code"),
        (
            lambda k: shutil.copy(k / "grader/oracles/trainer.py", k / "grader/slow_trainer.py"),
            "private code",
        ),
        (
            lambda k: (k / "assignment/hint.py").write_text(
                "def merge_hint(a, b, c):\n    out, i = [], 0\n    while i < len(a):\n"
                "        if i + 1 < len(a) and (a[i], a[i + 1]) == tuple(b):\n            out.append(c)\n"
                "            i += 2\n        else:\n            out.append(a[i])\n            i += 1\n    return out\n"
            ),
            "private code",
        ),
        (
            lambda k: (k / "data/fixtures/public/extra.txt").write_text(
                (k / "data/fixtures/hidden/corpus.txt").read_text()
            ),
            "hidden fixture",
        ),
        (lambda k: (k / "assignment/README.md").write_text("See test_secret_unicode_case.\n"), "hidden test"),
    ],
)
def test_a_planted_leak_stops_the_build(tmp_path, plant, where):
    kit = _mini_kit(tmp_path / "kit")
    clean = build(kit, tmp_path / "clean.zip")  # the mini kit itself is clean
    assert "grader/oracles/trainer.py" not in clean  # an oracle stays out without a word
    plant(kit)
    with pytest.raises(LeakError, match=where):
        build(kit, tmp_path / "leaky.zip")
    assert not (tmp_path / "leaky.zip").exists()


def test_a_hidden_rubric_entry_never_reaches_the_handout(tmp_path):
    kit = _mini_kit(tmp_path / "kit")
    (kit / "grader/rubric.toml").write_text(
        '# points\ntotal = 10\n\n[[test]]\nid = "test_public.py::test_visible_thing"\npoints = 4\n'
        'visibility = "visible"\n\n[[test]]\nid = "test_hidden_extra.py::test_secret_unicode_case"\n'
        'points = 6\nvisibility = "hidden"\n'
    )
    files = build(kit, tmp_path / "h.zip")
    rubric = tomllib.loads(files["grader/rubric.toml"].decode())
    # the declared total becomes the visible tests' own, so the handout's grader accepts its rubric
    assert rubric["total"] == 4 and [t["points"] for t in rubric["test"]] == [4]
    assert b"secret" not in files["grader/rubric.toml"] and "# points" in files["grader/rubric.toml"].decode()


GRADER_READY = all((KIT / p).exists() for p in ("grader/api.py", "grader/__main__.py", "grader/rubric.toml"))


@pytest.mark.slow
@pytest.mark.skipif(
    not GRADER_READY, reason="the grader or its rubric (grader/rubric.toml) is not written yet"
)
def test_unzipped_handout_grades_the_starter_to_zero_with_not_implemented(handout, tmp_path):
    root = _unzipped(handout, tmp_path)
    r = subprocess.run(
        ["make", "grade", f"PY={sys.executable}"], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert not (root / ".venv").exists()  # PY= was honoured: nothing installed
    results = json.loads((root / "results/results.json").read_text())
    assert results["score"] == 0 and results["tests"]
    assert "not implemented" in (r.stdout + r.stderr).lower()
    assert all("not implemented" in t.get("output", "").lower() or t["score"] == 0 for t in results["tests"])


def _unzipped(handout, where: Path) -> Path:
    """The handout's zip unpacked in `where`: its top folder, as a student has it."""
    with zipfile.ZipFile(handout[0]) as z:
        z.extractall(where)
    return where / TOP


@pytest.fixture(scope="module")
def student_python(tmp_path_factory) -> str:
    """An interpreter with the grading set but not the kit: the kit's venv has it installed
    (`pip install -e .`), and its import hook would hand the handout's grader the kit's oracles.
    A fresh venv reads the kit venv's packages through a .pth line, whose own .pth files (the
    hook's) Python does not read."""
    venv = tmp_path_factory.mktemp("student-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    ours = next(p for p in sys.path if p.endswith("site-packages") and Path(p, "pytest").is_dir())
    theirs = next(venv.glob("lib/python3*/site-packages"))
    (theirs / "grading-set.pth").write_text(ours + "\n")
    return str(venv / "bin" / "python")


def _grade(root: Path, submission: str, out: Path, *more: str, python: str = sys.executable) -> dict:
    r = subprocess.run(
        [python, "-m", "grader", "grade", submission, "--out", str(out), *more],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return json.loads((out / "results.json").read_text())


@pytest.mark.slow
@pytest.mark.skipif(
    not GRADER_READY, reason="the grader or its rubric (grader/rubric.toml) is not written yet"
)
def test_the_reference_copied_into_the_unzipped_handout_gets_full_marks_as_in_the_kit(
    handout, student_python, tmp_path
):
    """Without the oracles and without solution/ (so the speed budgets come from the yardstick)."""
    root = _unzipped(handout, tmp_path)
    assert not (root / "solution").exists() and not (root / "grader/oracles").exists()
    shutil.copytree(KIT / "solution", root / "mine", ignore=shutil.ignore_patterns("__pycache__"))
    there = _grade(root, "mine", tmp_path / "handout-results", python=student_python)
    assert there["tests"] and there["score"] == sum(t["max_score"] for t in there["tests"]), [
        t["name"] + ": " + t.get("output", "")[:300] for t in there["tests"] if t["score"] < t["max_score"]
    ]
    here = _grade(KIT, str(KIT / "solution"), tmp_path / "kit-results")
    visible = {
        t["name"]: t["score"] for t in here["tests"] if t["name"] in {u["name"] for u in there["tests"]}
    }
    assert visible == {t["name"]: t["score"] for t in there["tests"]}
    assert NOT_PROVEN not in there["output"]


NOT_PROVEN = "holds no reference to prove that one fault alone fails several tests"


@pytest.mark.slow
@pytest.mark.skipif(
    not GRADER_READY, reason="the grader or its rubric (grader/rubric.toml) is not written yet"
)
def test_a_fault_failing_two_tests_in_the_handout_says_the_final_grade_may_charge_it_less(
    handout, student_python, tmp_path
):
    """The handout's copy cannot prove a fault alone (no oracles): its report says so, the kit's not."""
    root = _unzipped(handout, tmp_path)
    mine = catalogue.materialize(catalogue.by_name("part1_merge_across_newline"), root / "mine")
    there = _grade(root, str(mine), tmp_path / "handout-results", "--part", "1", python=student_python)
    no_oracles = [student_python, "-c", "import grader.suite.trusted as t; print(t.oracles_here())"]
    assert subprocess.run(no_oracles, cwd=root, capture_output=True, text=True).stdout.strip() == "False"
    assert sum(t["score"] < t["max_score"] for t in there["tests"]) >= 2
    assert NOT_PROVEN in there["output"]
    here = _grade(KIT, str(mine), tmp_path / "kit-results", "--part", "1")
    assert NOT_PROVEN not in here["output"]


# --- the handout in Chinese -------------------------------------------------------------------


@pytest.fixture(scope="module")
def handout_zh(tmp_path_factory):
    dest = tmp_path_factory.mktemp("handout-zh") / "handout-zh.zip"
    build(KIT, dest, "zh")
    with zipfile.ZipFile(dest) as z:
        return dest, {n.removeprefix(f"{TOP}/"): z.read(n) for n in z.namelist()}


def test_the_chinese_handout_is_the_english_one_with_its_translation(handout, handout_zh):
    _, english = handout
    _, chinese = handout_zh
    translation = {p.relative_to(KIT).as_posix() for p in (KIT / "assignment/zh").glob("*.md")}
    assert len(translation) >= 8 and translation <= set(chinese)
    assert not [n for n in english if n.startswith("assignment/zh/")]  # the English zip: no translation
    assert set(chinese) == set(english) | translation
    differ = sorted(n for n in english if english[n] != chinese[n])
    assert differ == ["Makefile", "README.md"]
    assert chinese["README.md"] == (TEMPLATES / "student_README.zh.md").read_bytes()
    assert "assignment/zh/README.md" in chinese["README.md"].decode()
    assert english["README.md"] == (TEMPLATES / "student_README.md").read_bytes()
    assert english["Makefile"] == (TEMPLATES / "student.Makefile").read_bytes()


def test_both_makefiles_run_the_same_recipes(tmp_path):
    english = (TEMPLATES / "student.Makefile").read_text(encoding="utf-8")
    chinese = translated_makefile(english, TEMPLATES / "student.Makefile.zh.toml", "zh")
    assert "export LANG := zh_CN.UTF-8" in chinese and "给你的 bpe 评分" in chinese
    for name, text in (("en.mk", english), ("zh.mk", chinese)):
        (tmp_path / name).write_text(text, encoding="utf-8")

    def recipes(makefile: str, *extra: str) -> list[str]:
        out = []
        for target in ("grade", "lab", "corpus", "submission", "clean"):
            r = subprocess.run(
                ["make", "-n", "-f", makefile, target, "PY=python3", *extra],
                cwd=tmp_path,
                capture_output=True,
                text=True,
            )
            assert r.returncode == 0, r.stderr
            out.append(r.stdout)
        return out

    assert recipes("zh.mk") == recipes("en.mk")
    # A LANG on the command line reaches the grader as --lang, in both Makefiles alike.
    assert recipes("zh.mk", "LANG=en") == recipes("en.mk", "LANG=en")


def test_the_chinese_makefile_speaks_chinese_unless_lang_is_given(tmp_path):
    prelude_only = tmp_path / "prelude.toml"  # the translation's prelude, on a Makefile that shows LANG
    prelude_only.write_text(
        (TEMPLATES / "student.Makefile.zh.toml").read_text(encoding="utf-8").split("[[line]]")[0],
        encoding="utf-8",
    )
    (tmp_path / "Makefile").write_text(translated_makefile("show:\n\t@echo $$LANG\n", prelude_only, "zh"))
    env = {"PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8"}
    for extra, lang in (([], "zh_CN.UTF-8"), (["LANG=en"], "en")):
        said = subprocess.run(
            ["make", "-s", "show", *extra], cwd=tmp_path, capture_output=True, text=True, env=env
        )
        assert said.stdout.strip() == lang


def test_a_translation_out_of_step_with_the_english_stops_the_build(tmp_path):
    spec = tmp_path / "student.Makefile.zh.toml"
    spec.write_text('[[line]]\nen = "# a line the Makefile does not hold"\nzh = "# 一行"\n', encoding="utf-8")
    with pytest.raises(
        TranslationError, match=r"student\.Makefile\.zh\.toml: \[\[line\]\] number 1 is not a line"
    ):
        translated_makefile("all:\n", spec, "zh")
    spec.write_text('[[line]]\nen = "all:"\n', encoding="utf-8")
    with pytest.raises(TranslationError, match="needs en and zh"):
        translated_makefile("all:\n", spec, "zh")


def test_a_leak_in_the_translation_stops_the_chinese_build(tmp_path):
    kit = _mini_kit(tmp_path / "kit")
    (kit / "assignment/zh").mkdir()
    (kit / "assignment/zh/README.md").write_text("# 作业\n", encoding="utf-8")
    files = build(kit, tmp_path / "zh.zip", "zh")
    assert "assignment/zh/README.md" in files
    assert "assignment/zh/README.md" not in build(kit, tmp_path / "en.zip")
    (kit / "assignment/zh/README.md").write_text("见 test_secret_unicode_case。\n", encoding="utf-8")
    with pytest.raises(LeakError, match="hidden test"):
        build(kit, tmp_path / "leaky.zip", "zh")


def test_the_command_builds_the_chinese_zip_and_refuses_an_unknown_language(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "grader.release", "handout", "--lang", "zh", "--out", str(tmp_path / "h.zip")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "wrote" in r.stdout
    assert f"{TOP}/assignment/zh/README.md" in zipfile.ZipFile(tmp_path / "h.zip").namelist()
    r = subprocess.run(
        [sys.executable, "-m", "grader.release", "handout", "--lang", "fr"],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "no catalogue for 'fr'" in r.stderr
    made = subprocess.run(
        ["make", "-n", "handout", "LANG=zh_CN.UTF-8"], cwd=KIT, capture_output=True, text=True
    )
    assert "release handout --lang zh" in made.stdout
    made = subprocess.run(
        ["make", "-n", "handout"],
        cwd=KIT,
        capture_output=True,
        text=True,
        env={**os.environ, "LANG": "zh_CN.UTF-8"},
    )
    assert "release handout --lang en" in made.stdout  # the locale does not choose a release's language


def test_the_unzipped_chinese_handout_runs_its_labs_in_chinese(handout_zh, tmp_path):
    root = _unzipped(handout_zh, tmp_path)
    env = {"PATH": os.environ["PATH"], "LANG": "en_US.UTF-8"}
    r = subprocess.run(
        ["make", "lab", f"PY={sys.executable}"], cwd=root, capture_output=True, text=True, env=env
    )
    assert r.returncode != 0 and "这个实验需要 `CharBPE.train`" in r.stderr
    r = subprocess.run(
        ["make", "lab", f"PY={sys.executable}", "LANG=en"], cwd=root, capture_output=True, text=True, env=env
    )
    assert "This lab needs `CharBPE.train`" in r.stderr
