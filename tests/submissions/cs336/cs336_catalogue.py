"""Build the CS336-shaped repositories of catalogue.toml on disk (see its header for the keys)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIT_ROOT = HERE.parents[2]
CATALOGUE = HERE / "catalogue.toml"
VENV_MODULE = "cs336_venv_only"


class BuildError(Exception):
    """A row or one of its build steps is wrong; the message names the row."""


class NoCompiler(Exception):
    """This machine cannot compile a row's C extension (no C compiler, or no Python.h for this
    interpreter): the row cannot be built here, through no fault of its own."""


@dataclass(frozen=True)
class Repo:
    name: str
    why: str
    select: str
    fails: tuple[str, ...] = ()
    overlay: tuple[str, ...] = ()
    replace: tuple[dict, ...] = ()
    venv: bool = False
    extension: bool = False
    feedback: tuple[tuple[str, str], ...] = ()  # (rubric id, words its feedback must hold)


def load(path: Path = CATALOGUE) -> list[Repo]:
    rows = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("repo", [])
    repos = []
    for row in rows:
        try:
            repos.append(
                Repo(
                    name=row["name"],
                    why=row["why"],
                    select=row["select"],
                    fails=tuple(row.get("fails", ())),
                    overlay=tuple(row.get("overlay", ())),
                    replace=tuple(row.get("replace", ())),
                    venv=bool(row.get("venv", False)),
                    extension=bool(row.get("extension", False)),
                    feedback=tuple(row.get("feedback", {}).items()),
                )
            )
        except KeyError as e:
            raise BuildError(f"{path}: [[repo]] {row.get('name', '?')}: missing key {e}") from None
    return repos


def build(repo: Repo, dest: Path) -> Path:
    """The repository at dest (made here): reference/ + solution/bpe + overlays + edits [+ .venv]."""
    dest = Path(dest)
    shutil.copytree(HERE / "reference", dest, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        KIT_ROOT / "solution" / "bpe",
        dest / "cs336_basics" / "bpe",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for name in repo.overlay:
        source = HERE / "overlays" / name
        if not source.is_dir():
            raise BuildError(f"{repo.name}: no overlay {name!r} in {HERE / 'overlays'}")
        shutil.copytree(source, dest, dirs_exist_ok=True)
    for edit in repo.replace:
        target = dest / edit["file"]
        text = target.read_text(encoding="utf-8")
        if text.count(edit["old"]) != 1:
            raise BuildError(f"{repo.name}: {edit['file']}: {edit['old']!r} must occur exactly once")
        target.write_text(text.replace(edit["old"], edit["new"]), encoding="utf-8")
    if repo.venv:
        make_venv(dest / ".venv")
    if repo.extension:
        compile_in_place(repo, dest / "cs336_basics")
    return dest


def compile_in_place(repo: Repo, package: Path) -> None:
    """Each C module of `package` (its overlay's `*.c`) built beside its source for this
    interpreter, as a student's `python setup.py build_ext --inplace` would. Compiled here, not
    copied from the interpreter's own: whether a standard module is a file or built into the
    interpreter is the build's choice (Debian builds `_bisect` in)."""
    sources = sorted(package.glob("*.c"))
    if not sources:
        raise BuildError(f"{repo.name}: extension = true, but its overlays hold no {package.name}/*.c")
    cc, include = shutil.which("cc"), Path(sysconfig.get_paths()["include"])
    if cc is None or not (include / "Python.h").is_file():
        why = "no C compiler (cc)" if cc is None else f"no {include / 'Python.h'} (the Python headers)"
        raise NoCompiler(f"{repo.name}: {why} to build its extension module here")
    for source in sources:
        target = source.with_name(source.stem + sysconfig.get_config_var("EXT_SUFFIX"))
        done = subprocess.run(
            [cc, "-shared", "-fPIC", f"-I{include}", str(source), "-o", str(target)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise BuildError(f"{repo.name}: {source.name} does not compile: {done.stderr.strip()[-500:]}")


def make_venv(path: Path) -> Path:
    """A venv of this interpreter's Python (no pip) holding one module the sandbox lacks, and a
    copy of this interpreter's `regex` (a CS336 venv has its own; the sandbox lends it none)."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, capture_output=True
    )
    site = next(path.glob("lib/python*/site-packages"))
    spec = importlib.util.find_spec("regex")
    shutil.copytree(next(iter(spec.submodule_search_locations)), site / "regex")
    (site / f"{VENV_MODULE}.py").write_text('"""Only this venv has it."""\n', encoding="utf-8")
    return path / "bin" / "python"
