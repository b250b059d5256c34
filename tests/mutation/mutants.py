"""The mutants of the reference's graded modules, as Cosmic Ray enumerates them, and their identity.

Cosmic Ray numbers a mutant by (module, operator, occurrence): the occurrence shifts whenever the
module changes anywhere above it. A mutant is named here by what it does instead: its module, the
function it is in, its operator, the source line it changes, that line as mutated, and `nth` to
tell apart the same change made to two equal lines of one function (`Mutant.key`).
tests/mutation/equivalent.toml lists mutants by that name, and it survives edits elsewhere.
"""

from __future__ import annotations

import ast
import difflib
import random
import tempfile
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from unittest import mock

import cosmic_ray.plugins
from cosmic_ray.commands.init import init
from cosmic_ray.mutating import mutate_code
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkItem

KIT = Path(__file__).resolve().parents[2]
SOLUTION = KIT / "solution"
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.toml"
SEED = 33  # the sample is the same on every machine and every run

# The modules whose functions the starter's stubs ask for, and the Parts whose graded tests call
# them (rubric.toml). gpt2_bytes.py and __main__.py are given whole to the students; extras/ is asked
# for by no stub. pretokenize.py is graded by Part 2 directly and by Part 3 through encode().
MODULE_PARTS: dict[str, tuple[str, ...]] = {
    "char_bpe": ("1",),
    "pretokenize": ("2", "3"),
    "training": ("2",),
    "tokenizer": ("3",),
}


@dataclass(frozen=True)
class Mutant:
    module: str  # "training"
    function: str  # the innermost definition holding it ("_learn_merges"), "" at module level
    operator: str  # Cosmic Ray's name, "core/ReplaceComparisonOperator_Lt_LtE"
    line: str  # the source line it changes, stripped
    mutated: str  # the changed lines as mutated, stripped, " | " between lines ("" when removed)
    lineno: int  # where it is now: for the report only, never part of the name
    nth: int = 0  # 0 for the first mutant of its function with this change, 1 for the next...

    @property
    def key(self) -> tuple[str, str, str, str, str, int]:
        return (self.module, self.function, self.operator, self.line, self.mutated, self.nth)

    def describe(self) -> str:
        where = f"bpe/{self.module}.py:{self.lineno}" + (f" (nth = {self.nth})" if self.nth else "")
        return f"{where} {self.operator.removeprefix('core/')} in {self.function or '<module>'}: `{self.line}` -> `{self.mutated}`"


def module_path(root: Path, module: str) -> Path:
    return root / "bpe" / f"{module}.py"


def enumerate_into(db: WorkDB, root: Path, modules: list[str], operators: set[str] | None = None) -> None:
    """Cosmic Ray's own enumeration (`cosmic-ray init`) of the modules of `root`/bpe into `db`, with
    every core operator that takes no arguments, or only `operators`: an operator's occurrences
    are numbered on their own, so leaving the others out changes none of its mutants."""
    every = cosmic_ray.plugins.operator_names
    only = (lambda: [name for name in every() if name in operators]) if operators else every
    with mock.patch.object(cosmic_ray.plugins, "operator_names", only):
        init([module_path(root, m) for m in modules], db, {})


def work_items(root: Path, modules: list[str], operators: set[str] | None = None) -> list[WorkItem]:
    """Every mutant of the modules (of `operators` only, if given), in a stable order."""
    with tempfile.TemporaryDirectory() as tmp, use_db(Path(tmp) / "enum.sqlite") as db:
        enumerate_into(db, root, modules, operators)
        items = db.work_items
    return sorted(items, key=stable_order)


def stable_order(item: WorkItem) -> tuple[str, str, int]:
    spec = item.mutations[0]
    return (str(spec.module_path), spec.operator_name, spec.occurrence)


def module_of(item: WorkItem) -> str:
    return Path(item.mutations[0].module_path).stem


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions, (line, column) as Cosmic Ray counts them, of every type annotation."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        notes = []
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            notes.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            notes.append(node.returns)
        spans += [((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)) for n in notes]
    return spans


def in_annotation(item: WorkItem, spans) -> bool:
    """A mutant inside a type annotation (`str | os.PathLike` -> `str - os.PathLike`) changes no
    behaviour a test can see but the import: it is left out, not graded."""
    start = tuple(item.mutations[0].start_pos)
    return any(low <= start < high for low, high in spans)


def identify(item: WorkItem, source: str) -> Mutant:
    """The mutant's name: applies it to `source` (the text of its module) and reads the change."""
    spec = item.mutations[0]
    operator = cosmic_ray.plugins.get_operator(spec.operator_name)(**(spec.operator_args or {}))
    mutated = mutate_code(source, operator, spec.occurrence)
    if mutated is None:
        raise ValueError(f"{spec.module_path}: {spec.operator_name} #{spec.occurrence} mutates nothing")
    before, after = source.splitlines(), mutated.splitlines()
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += before[i1:i2]
            added += after[j1:j2]
    return Mutant(
        module=Path(spec.module_path).stem,
        function=spec.definition_name or "",
        operator=spec.operator_name,
        line=" | ".join(s.strip() for s in removed if s.strip()),
        mutated=" | ".join(s.strip() for s in added if s.strip()),
        lineno=spec.start_pos[0],
    )


def name_all(
    items: list[WorkItem], sources: dict[str, str], lines: set[str] | None = None
) -> dict[str, Mutant]:
    """job id -> the mutant's name, for `items` in stable order, `nth` counted among equal changes.
    With `lines`, only the mutants of those source lines (stripped) are named: the others would cost
    a parse each, and a mutant's equals are always on a line equal to its own."""
    named, seen = {}, {}
    for item in items:
        if lines is not None and first_line(item, sources) not in lines:
            continue
        mutant = identify(item, sources[module_of(item)])
        nth = seen.get(mutant.key, 0)
        seen[mutant.key] = nth + 1
        named[item.job_id] = replace(mutant, nth=nth)
    return named


def first_line(item: WorkItem, sources: dict[str, str]) -> str:
    line = item.mutations[0].start_pos[0]
    return sources[module_of(item)].splitlines()[line - 1].strip()


def load_equivalents(path: Path = EQUIVALENT) -> list[dict]:
    """The [[mutant]] entries of equivalent.toml."""
    return tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", [])


def entry_key(entry: dict) -> tuple[str, str, str, str, str, int]:
    return (
        entry["module"],
        entry["function"],
        entry["operator"],
        entry["line"],
        entry["mutated"],
        entry.get("nth", 0),
    )


def choose(items: list[WorkItem], sample: int | None) -> list[WorkItem]:
    """`sample` of the items (all of them for None), the same ones on every run: a fixed seed over
    a stable order."""
    if sample is None or sample >= len(items):
        return items
    return sorted(random.Random(SEED).sample(items, sample), key=stable_order)
