"""`grade --contract cs336`: CS336-shaped repositories (tests/submissions/cs336/) graded through the
real CLI, jailed. The reference and a variant with another id layout get full marks; each classic
mistake loses exactly its tests; a repository that imports what only its venv has grades only under
that interpreter (`--python`, or the repository's .venv by default)."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from grader.paths import KIT_ROOT

sys.path[:0] = [str(KIT_ROOT / "tests" / "submissions" / "cs336"), str(KIT_ROOT / "tests" / "submissions")]
import cs336_catalogue as build  # noqa: E402
import jail  # noqa: E402

from grader import rubric  # noqa: E402
from grader.checks.training_check import relabelled  # noqa: E402
from grader.cs336 import contract  # noqa: E402
from grader.terms import Status  # noqa: E402

REPOS = {r.name: r for r in build.load()}
ENTRIES = rubric.load(contract.RUBRIC)
KIT_ENTRIES = rubric.load(KIT_ROOT / "grader" / "rubric.toml")
CS336 = ("--contract", "cs336")


# ------------------------------------------------------------------------------------ fast checks
def test_rubric_covers_every_graded_test_once():
    suite = set()
    for path in sorted((KIT_ROOT / "tests" / "graded").glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                suite.add(f"{path.name}::{node.name}")
    graded = [e.id for e in ENTRIES]
    left_out = [s.entry.id for s in contract.not_in_contract()]
    assert sorted(graded + left_out) == sorted(suite), "each graded test is graded or left out, once"
    assert sum(e.points for e in ENTRIES) == 100
    kit = {e.id: (e.number, e.part) for e in KIT_ENTRIES}
    assert all(kit[e.id] == (e.number, e.part) for e in ENTRIES), "numbers and parts are the kit's"
    assert all(s.status == Status.NOT_IN_CONTRACT and s.entry.points == 0 for s in contract.not_in_contract())
    assert contract.notes(), "the notes on CS336's rules go with every grade"


# CS336's weighting, the one thing its rubric states for every test it grades (by kit number).
CS336_POINTS = {
    "2.3": 5, "2.4": 5, "2.5": 5, "2.6": 5, "2.8": 5, "2.9": 5, "2.10": 4, "2.13": 5, "2.15": 2,
    "2.16": 2, "2.17": 2, "2.19": 2, "3.1": 4, "3.2": 4, "3.3": 4, "3.4": 4, "3.8": 4, "3.9": 4,
    "3.10": 4, "3.11": 4, "3.12": 4, "3.13": 2, "E.1": 6, "E.2": 4, "E.3": 5,
}  # fmt: skip
# The two decode tests say what they check under CS336's rules (it states no error for an unknown id).
CS336_NAMES = {
    "3.4": ("decode: known texts, broken UTF-8", "decode：已知文本、损坏的 UTF-8"),
    "3.11": (
        "decode of any ids: the bytes joined, then errors='replace'",
        "解码任意编号：先拼接所有字节，再用 errors='replace' 解码",
    ),
}


def test_the_cs336_rubric_is_the_kits_changed_by_test_id():
    """rubric_cs336.toml states only what differs; what it loads is the kit's tests, in the kit's
    order, with the kit's numbers, parts, visibilities and names, CS336's points and two names."""
    kit = [e for e in KIT_ENTRIES if e.number in CS336_POINTS]
    assert [e.number for e in ENTRIES] == [e.number for e in kit]
    for mine, theirs in zip(ENTRIES, kit, strict=True):
        name, name_zh = CS336_NAMES.get(mine.number, (theirs.name, theirs.name_zh))
        expected = dataclasses.replace(theirs, points=CS336_POINTS[mine.number], name=name, name_zh=name_zh)
        assert mine == expected, mine.number
    left_out = {s.entry.number: s.entry for s in contract.not_in_contract()}
    assert sorted(left_out) == sorted(e.number for e in KIT_ENTRIES if e.number not in CS336_POINTS)
    for e in KIT_ENTRIES:
        if e.number in left_out:
            assert left_out[e.number] == dataclasses.replace(e, points=0, visibility="visible")


def test_relabelled_accepts_any_ids_but_not_other_tokens():
    golden = {0: b"a", 1: b"b", 2: b"<|e|>", 3: b"ab"}
    assert relabelled({7: b"<|e|>", 0: b"a", 1: b"b", 9: b"ab"}, golden) == golden
    extra = relabelled({0: b"a", 1: b"b", 2: b"ab", 3: b"ab"}, golden)
    assert extra != golden and sorted(extra.values()) == [b"a", b"ab", b"ab", b"b"]
    assert relabelled({0: b"a", 1: b"b", 2: b"ab"}, golden) != golden


def _built(repo: build.Repo, dest: Path) -> Path:
    """`repo` built at `dest`; skips where this machine cannot compile the row's extension."""
    try:
        return build.build(repo, dest)
    except build.NoCompiler as e:
        pytest.skip(str(e))


def test_every_repo_builds(tmp_path):
    cannot = []
    for repo in REPOS.values():
        if repo.venv:
            continue  # built (with its venv) by its grading test
        try:
            dest = build.build(repo, tmp_path / repo.name)
        except build.NoCompiler as e:
            cannot.append(str(e))
            continue
        assert (dest / "tests" / "adapters.py").is_file() and (dest / "cs336_basics" / "bpe").is_dir()
        assert repo.why and all(f in {e.id for e in ENTRIES} for f in repo.fails), repo.name
        if repo.extension:  # built for this interpreter: it imports here
            built = list((dest / "cs336_basics").glob("*" + sysconfig.get_config_var("EXT_SUFFIX")))
            assert built and all(_imports(path) for path in built), repo.name
    if cannot:
        pytest.skip("; ".join(cannot))


def _imports(extension: Path) -> bool:
    """Whether this interpreter loads the extension module file `extension`."""
    name = extension.name.split(".")[0]
    spec = importlib.util.spec_from_file_location(name, extension)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.__file__ == str(extension)


def test_intake_finds_a_zipped_repository_and_leaves_data_behind(tmp_path):
    import zipfile

    from grader.cs336 import intake

    repo = build.build(REPOS["cs336-reference"], tmp_path / "assignment1-basics")
    (repo / "data").mkdir()
    (repo / "data" / "TinyStories.txt").write_text("once upon a time\n")
    (repo / "tests" / "fixtures").mkdir()
    (repo / "tests" / "fixtures" / "corpus.en").write_text("text\n")
    (repo / "cs336_basics" / "_fast.cpython-312-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in repo.rglob("*"):
            zf.write(path, Path("handin") / path.relative_to(tmp_path))
    with intake.opened(archive) as staged:
        package = staged.parent / "bpe"
        assert (package / "__init__.py").read_bytes() == intake.SHIM.read_bytes()
        assert (package / "_repo" / "tests" / "adapters.py").is_file()
        assert (package / "_repo" / "cs336_basics" / "bpe" / "training.py").is_file()
        assert (package / "_repo" / "cs336_basics" / "_fast.cpython-312-x86_64-linux-gnu.so").is_file()
        metadata = package / "_repo" / "cs336_basics-1.0.6.dist-info" / "METADATA"
        assert "Name: cs336_basics\nVersion: 1.0.6\n" in metadata.read_text(), "not pip-installed, it imports"
        kept = {p.suffix for p in package.rglob("*") if p.is_file() and p != metadata}
        assert kept == {".py", ".so"}, kept


def test_not_a_repository_is_one_clear_line(tmp_path):
    import subprocess

    (tmp_path / "empty").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            *CS336,
            str(tmp_path / "empty"),
            "--out",
            str(tmp_path / "o"),
        ],
        cwd=KIT_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().endswith("not a CS336 assignment-1 repository"), proc.stderr


# ------------------------------------------------------------------------------------ gradings
def _grade(repo_dir: Path, out: Path, select: str, *args: str) -> jail.Jailed:
    done = jail.grade_in_jail(repo_dir, out, tests=select or None, options=(*CS336, *args))
    assert done.returncode == 0 and done.results is not None, done.stderr[-2000:]
    assert done.leftovers == [], done.leftovers
    return done


def _by_number(results: dict) -> dict[str, dict]:
    return {t["number"]: t for t in results["tests"]}


NUMBER = {e.id: e.number for e in ENTRIES}


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, r in REPOS.items() if not r.venv])
def test_grade_matches_catalogue(name, tmp_path):
    repo = REPOS[name]
    done = _grade(_built(repo, tmp_path / "repo"), tmp_path / "out", repo.select)
    tests = _by_number(done.results)
    failing = {NUMBER[i] for i in repo.fails}
    assert failing <= set(tests), f"{name}: its select does not run {failing - set(tests)}"
    for number, t in tests.items():
        if number in failing:
            assert t["score"] == 0 and t["status"] == "failed", f"{name}: {number} should fail"
        else:
            assert t["score"] == t["max_score"], f"{name}: {number} lost points:\n{t['output'][:1500]}"
    for test_id, words in repo.feedback:
        assert words in tests[NUMBER[test_id]]["output"], f"{name}: {test_id} must say {words!r}"
    if repo.select:  # a partial run names the command that grades it all
        said = " ".join(done.stdout.split())  # unwrapped
        assert "Run `bpe-kit grade --contract cs336 " in said and "make grade`" not in said, said[-600:]
    if not repo.select:  # a full run: the left-out tests are reported, neither passed nor failed
        assert done.results["score"] == 100 - sum(e.points for e in ENTRIES if e.id in repo.fails)
        left = [t for t in done.results["tests"] if t["max_score"] == 0]
        assert len(left) == len(contract.not_in_contract())
        assert all("status" not in t and "Not part of the cs336 contract" in t["output"] for t in left)
        assert "Vocab ids" in done.results["output"]


@pytest.mark.slow
def test_repo_needing_its_venv_grades_only_under_it(tmp_path):
    repo = REPOS["cs336-needs-venv"]
    with_venv = build.build(repo, tmp_path / "repo")  # .venv inside: used by default
    done = _grade(with_venv, tmp_path / "default", repo.select)
    assert all(t["score"] == t["max_score"] for t in done.results["tests"]), done.results
    outside = tmp_path / "elsewhere"
    shutil.move(with_venv / ".venv", outside)
    done = _grade(with_venv, tmp_path / "explicit", repo.select, "--python", str(outside / "bin" / "python"))
    assert all(t["score"] == t["max_score"] for t in done.results["tests"]), done.results
    done = _grade(with_venv, tmp_path / "without", repo.select)  # no venv: the sandbox's interpreter
    assert done.results["tests"] and all(t["score"] == 0 for t in done.results["tests"])
    # One banner names the missing module; each test says it is not graded (a file that does not import).
    assert build.VENV_MODULE in done.results["output"], done.results["output"][:500]
    assert all(t["output"].startswith("not graded: ") for t in done.results["tests"]), done.results["tests"][
        0
    ]


def test_python_that_is_not_there_is_one_clear_line(tmp_path):
    import subprocess

    repo = build.build(REPOS["cs336-reference"], tmp_path / "repo")
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", *CS336, str(repo), "--python", str(tmp_path / "nope")]
        + ["--out", str(tmp_path / "o")],
        cwd=KIT_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--python: no such interpreter" in proc.stderr, proc.stderr


def test_python_outside_requires_python_is_one_clear_line(tmp_path):
    import subprocess

    repo = build.build(REPOS["cs336-reference"], tmp_path / "repo")
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('">=3.11"', '">=3.99"'))
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", *CS336, str(repo), "--out", str(tmp_path / "o")],
        cwd=KIT_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert "requires-python = '>=3.99'" in proc.stderr and "--python PATH" in proc.stderr, proc.stderr


def test_requires_python_reads_the_interpreter_without_running_it(tmp_path):
    from grader.cs336 import intake
    from grader.errors import PythonError

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.12"\n')
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("never run")
    for version, fits in (("3.11.9", False), ("3.12.1", True), ("3.13.0", True)):
        (venv / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {version}\n")
        if fits:
            intake.check_python(tmp_path, str(venv / "bin" / "python"))
        else:
            with pytest.raises(PythonError, match=r"requires-python = '>=3.12'.*Python 3\.11\.9"):
                intake.check_python(tmp_path, str(venv / "bin" / "python"))


@pytest.mark.slow
def test_farm_grades_a_folder_of_repositories(tmp_path):
    sys.path.insert(0, str(KIT_ROOT / "tests" / "kit"))
    from sandboxed import PYTHON, run_sandboxed

    subs = tmp_path / "subs"
    build.build(REPOS["cs336-reference"], subs / "alice")
    build.build(REPOS["cs336-decode-strict"], subs / "bob")
    (subs / "carol").mkdir()  # not a CS336 repository
    dave = build.build(REPOS["cs336-reference"], subs / "dave")  # for a Python the farm does not have
    (dave / "pyproject.toml").write_text((dave / "pyproject.toml").read_text().replace(">=3.11", ">=3.99"))
    out = tmp_path / "out"
    proc = run_sandboxed(
        [PYTHON, "-m", "grader.farm", "grade", subs, "--out", out, *CS336, "--tests", "test_decode"]
        + ["--python", PYTHON],  # one interpreter for the class
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    gradebook = (out / "gradebook.csv").read_text(encoding="utf-8")
    rows = {line.split(",")[0]: line for line in gradebook.splitlines()[1:]}
    assert set(rows) >= {"alice", "bob", "carol"}, gradebook
    grades = {
        s["student"]: s for s in json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]
    }
    decode = sum(e.points for e in ENTRIES if e.id.startswith("test_part3.py::test_decode"))
    assert decode == 8 and grades["alice"]["total"] == decode, grades["alice"]
    assert grades["alice"]["max_total"] == 100, "a --tests pass is scored against the whole cs336 rubric"
    assert grades["bob"]["status"] == "graded" and grades["bob"]["total"] == 0
    assert grades["carol"]["status"] == "unreadable_submission"
    assert "not a CS336 assignment-1 repository" in grades["carol"]["reason"]
    assert grades["dave"]["status"] == "grader_error" and "--python PATH" in grades["dave"]["reason"]
    assert "--ignore-requires-python" in grades["dave"]["reason"]
    proc = run_sandboxed(
        [PYTHON, "-m", "grader.farm", "grade", subs, "--out", out, *CS336, "--tests", "test_decode"]
        + ["--python", PYTHON, "--only", "dave", "--ignore-requires-python"],
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "dave: graded with --ignore-requires-python" in proc.stderr, proc.stderr[-2000:]
    results = json.loads((out / "students" / "dave" / "results.json").read_text(encoding="utf-8"))
    assert (
        results["score"] == decode
        and results["extra_data"]["requires_python_ignored"]["requires_python"] == ">=3.99"
    )


# ------------------------------------------------------------------------ the student's Python
def _fake_pyenv(root: Path, versions: tuple[str, ...]) -> Path:
    for version in versions:
        (root / "versions" / version / "bin").mkdir(parents=True)
        (root / "versions" / version / "bin" / "python").write_text("never run")
    return root


def test_equals_requires_python_means_exactly_and_names_what_matches_here(tmp_path, monkeypatch):
    from grader.cs336 import intake
    from grader.errors import PythonError

    monkeypatch.setenv("PYENV_ROOT", str(_fake_pyenv(tmp_path / "pyenv", ("3.11.7", "3.12.0", "3.12.4"))))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = "==3.12"\n')
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("never run")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.4\n")
    python = str(venv / "bin" / "python")
    with pytest.raises(PythonError) as refused:
        intake.check_python(repo, python)
    said = str(refused.value)
    assert "==3.12 means exactly 3.12.0" in said and "==3.12.* would mean any 3.12" in said, said
    assert str(tmp_path / "pyenv" / "versions" / "3.12.0" / "bin" / "python") in said, said
    assert "3.12.4/bin" not in said and "3.11.7" not in said, said  # only what matches is named
    assert "--ignore-requires-python" in said and "\n" not in said
    ignored = intake.check_python(repo, python, ignore=True)
    assert ignored.data() == {"requires_python": "==3.12", "version": "3.12.4", "python": python}
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = "==3.12.*"\n')
    assert intake.check_python(repo, python) is None


@pytest.mark.slow
def test_ignore_requires_python_grades_and_the_report_says_so(tmp_path):
    repo = build.build(REPOS["cs336-reference"], tmp_path / "repo")
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('">=3.11"', '">=3.99"'))
    done = _grade(repo, tmp_path / "out", "test_decode", "--ignore-requires-python")
    ignored = done.results["extra_data"]["requires_python_ignored"]
    assert ignored["requires_python"] == ">=3.99" and ignored["version"].startswith("3.")
    assert "--ignore-requires-python" in done.results["output"]
    assert "--ignore-requires-python" in " ".join(done.stdout.split())  # the terminal says it too
    assert all(t["score"] == t["max_score"] for t in done.results["tests"])


def _failure_of(source: str) -> dict:
    """What the worker reports of a module with this source that does not import here."""
    from grader.sandbox import importing

    try:
        exec(compile(source, "/sub/bpe/tokenizer.py", "exec"), {})
    except (SyntaxError, TypeError) as exc:
        return importing.failure(exc, "/sub", "bpe/tokenizer.py")
    pytest.skip(f"Python {sys.version_info[:2]} accepts {source!r}")


@pytest.mark.parametrize(
    ("source", "needs"),
    [
        ("type Pair = tuple[bytes, bytes]\n", "3.12"),
        ("def first[T](xs: list[T]) -> T:\n    return xs[0]\n", "3.12"),
        ("class Box[T]:\n    pass\n", "3.12"),
        ("from typing import Generator\nChunks = Generator[bytes]\n", "3.13"),
    ],
)
def test_code_for_a_newer_python_is_named_when_it_does_not_import(source, needs):
    from grader import python_needed

    hint = python_needed.hint(_failure_of(source))
    assert hint is not None and f"Python {needs} code" in hint and f'">={needs}"' in hint


def test_an_ordinary_error_gets_no_python_hint():
    from grader import python_needed

    assert python_needed.hint(_failure_of("def f(:\n    pass\n")) is None
    assert python_needed.hint(_failure_of("x = len(3)\n")) is None


@pytest.mark.slow
def test_a_repository_written_for_a_newer_python_is_told_which(tmp_path):
    if sys.version_info >= (3, 12):
        pytest.skip("the grader's Python accepts the `type` statement")
    repo = build.build(REPOS["cs336-reference"], tmp_path / "repo")
    tokenizer = repo / "cs336_basics" / "tokenizer.py"
    tokenizer.write_text(tokenizer.read_text() + "\ntype Pair = tuple[bytes, bytes]\n")
    done = _grade(repo, tmp_path / "out", "test_decode")
    assert all(t["score"] == 0 for t in done.results["tests"])
    assert "This is Python 3.12 code (the `type` statement" in done.results["output"], done.results["output"]
