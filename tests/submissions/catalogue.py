"""The submission catalogue: load `catalogue.toml` and build any of its submissions on disk.

Every row is one complete `bpe` submission with a known grade, so grading the catalogue proves the
grader: mutants (the reference with one classic bug) must lose exactly their named tests; variants
(independent correct implementations) must lose nothing; slow ones only the speed gates; hostile
ones exactly what they honestly earn.

How a row is built (`[submission.build]`):
- `base`: "solution" (copy of solution/bpe) or "variants/NAME" (a complete package kept here);
- `replace`: exact string edits `{file, old, new}`; each `old` must occur exactly once, so a change
  of the reference breaks the build loudly instead of silently testing nothing;
- `overlay`: a folder here whose files are copied over the submission (e.g. one replaced module);
- `attack = true` (hostile): `hostile/_shared/_hostile.py` goes in as `bpe/_hostile.py` and
  `bpe/__init__.py` ends by importing `bpe/_attack.py`, so the attack runs on the real package.
`@NAME@` placeholders in overlay files are filled from `build.fill` and `materialize(fill=...)`;
one left unfilled is an error.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIT_ROOT = HERE.parents[1]
CATALOGUE = HERE / "catalogue.toml"
KINDS = ("mutant", "variant", "hostile", "slow", "harmless")
_PLACEHOLDER = re.compile(r"@[A-Z][A-Z_]*@")
ATTACK_IMPORT = "\nfrom . import _attack  # noqa: E402,F401  (catalogue: hostile entry)\n"


class CatalogueError(Exception):
    """The catalogue or a build step is wrong; the message names the row and the problem."""


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str
    why: str
    build: dict
    select: str  # pytest -k expression: the rubric tests that matter to this entry
    fails: tuple[str, ...]  # rubric ids (fnmatch patterns) it must fail
    collateral: dict[str, str] = field(default_factory=dict)  # id pattern -> why it also fails
    score: float | None = None  # exact expected score of a full run, when stated
    linger: float = 0.3  # seconds to wait after grading before looking for leftover processes
    smoke: bool = False  # graded even in a quick run (BPE_KIT_CATALOGUE=smoke)
    gap: str | None = None  # a known hole in the grader or its suite: what goes wrong, what would fix it
    feedback: dict[str, str] = field(default_factory=dict)  # id -> words its feedback must contain
    # Files ("bpe/x.py") that must not compile: the row is about a module that does not import.
    uncompilable: tuple[str, ...] = ()
    # How many independent bugs the row holds: one (the rule), or two, each of which must be charged.
    bugs: int = 1
    # Why this one-bug row may lose more than one fault's cap (grader/charges.py CAP), when it does.
    over_cap: str | None = None

    def must_fail(self, test_id: str) -> bool:
        patterns = (*self.fails, *self.collateral)
        return any(fnmatchcase(test_id, p) for p in patterns)


def load(path: Path = CATALOGUE) -> list[Entry]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CatalogueError(f"{path}: cannot read ({e})") from None
    entries, seen = [], set()
    for i, row in enumerate(data.get("submission", []), 1):
        where = f"{path}: [[submission]] #{i} ({row.get('name', '?')})"
        try:
            entry = Entry(
                name=row["name"],
                kind=row["kind"],
                why=row["why"],
                build=dict(row.get("build", {})),
                select=row["select"],
                fails=tuple(row.get("fails", ())),
                collateral=dict(row.get("collateral", {})),
                score=row.get("score"),
                linger=float(row.get("linger", 0.3)),
                smoke=bool(row.get("smoke", False)),
                gap=row.get("gap"),
                feedback=dict(row.get("feedback", {})),
                uncompilable=tuple(row.get("uncompilable", ())),
                bugs=int(row.get("bugs", 1)),
                over_cap=row.get("over_cap"),
            )
        except KeyError as e:
            raise CatalogueError(f"{where}: missing key {e}") from None
        if entry.kind not in KINDS:
            raise CatalogueError(f"{where}: kind must be one of {KINDS}")
        if entry.name in seen:
            raise CatalogueError(f"{where}: duplicate name")
        if entry.kind in ("variant", "harmless") and (entry.fails or entry.collateral):
            raise CatalogueError(f"{where}: a {entry.kind} must fail nothing")
        if entry.kind in ("mutant", "slow") and not entry.fails:
            raise CatalogueError(f"{where}: a {entry.kind} must name the tests it fails")
        if entry.bugs not in (1, 2) or (entry.bugs == 2 and entry.over_cap):
            raise CatalogueError(f"{where}: bugs is 1 or 2, and over_cap is for one-bug rows only")
        if not entry.why.strip() or "\n" in entry.why.strip():
            raise CatalogueError(f"{where}: `why` must be one line")
        seen.add(entry.name)
        entries.append(entry)
    return entries


def grade_all() -> bool:
    """Grade every row (the default, as CI does), or only the `smoke` ones (BPE_KIT_CATALOGUE=smoke,
    for a quick run while working on the kit)."""
    return os.environ.get("BPE_KIT_CATALOGUE", "all") != "smoke"


def by_name(name: str, path: Path = CATALOGUE) -> Entry:
    for e in load(path):
        if e.name == name:
            return e
    raise CatalogueError(f"{path}: no submission named {name!r}")


def _copy_tree(src: Path, dst: Path, fill: dict[str, str]) -> None:
    for f in sorted(src.rglob("*")):
        if "__pycache__" in f.parts or f.suffix == ".pyc" or not f.is_file():
            continue
        target = dst / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = f.read_text(encoding="utf-8")
        for key, value in fill.items():
            text = text.replace(f"@{key}@", value)
        left = _PLACEHOLDER.search(text)
        if left:
            raise CatalogueError(f"{f}: placeholder {left.group()} was not filled in")
        target.write_text(text, encoding="utf-8")


def materialize(
    entry: Entry, dest: Path, *, fill: dict[str, str] | None = None, solution: Path = KIT_ROOT / "solution"
) -> Path:
    """Build `entry` as `dest/bpe/...` (dest must not exist yet); returns `dest`."""
    fill = {**entry.build.get("fill", {}), **(fill or {})}
    dest = Path(dest)
    dest.mkdir(parents=True)
    build = entry.build
    base = build.get("base", "variants/" + entry.name if entry.kind == "variant" else "solution")
    src = solution if base == "solution" else HERE / base
    if not (src / "bpe" / "__init__.py").is_file():
        raise CatalogueError(f"{entry.name}: base {base!r} has no bpe/__init__.py")
    _copy_tree(src / "bpe", dest / "bpe", {})
    for edit in build.get("replace", []):
        target = dest / edit["file"]
        if not target.is_file():
            raise CatalogueError(f"{entry.name}: {edit['file']} does not exist in {base}")
        text = target.read_text(encoding="utf-8")
        n = text.count(edit["old"])
        if n != 1:
            raise CatalogueError(
                f"{entry.name}: in {edit['file']}, expected exactly one occurrence of "
                f"{edit['old']!r}, found {n} (did the reference change?)"
            )
        target.write_text(text.replace(edit["old"], edit["new"]), encoding="utf-8")
    if "overlay" in build:
        overlay = HERE / build["overlay"]
        if not overlay.is_dir():
            raise CatalogueError(f"{entry.name}: overlay {build['overlay']} not found")
        _copy_tree(overlay, dest, fill)
    if build.get("attack"):
        if not (dest / "bpe" / "_attack.py").is_file():
            raise CatalogueError(f"{entry.name}: attack = true but no bpe/_attack.py in its overlay")
        shutil.copyfile(HERE / "hostile" / "_shared" / "_hostile.py", dest / "bpe" / "_hostile.py")
        with open(dest / "bpe" / "__init__.py", "a", encoding="utf-8") as f:
            f.write(ATTACK_IMPORT)
    return dest
