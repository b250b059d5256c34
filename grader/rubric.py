"""The rubric (grader/rubric.toml): which graded test is worth what, and who may see it.

total = 100                         # optional: what the points add up to; a rubric whose points
                                    # do not add up to it is refused (a slip in one entry's points)
[[test]]
id = "test_part1.py::test_trace"   # pytest node id relative to tests/graded; a parametrized
number = "1.1"                      # test's id covers all its cases (all must pass)
name = "CharBPE reproduces the worked trace"
name_zh = "CharBPE 重现讲解中的示例"      # optional: the name a Chinese report shows (grader/i18n.py)
part = 1                            # 1, 2, 3 or "efficiency"
points = 4
visibility = "visible"              # visible | hidden | after_due_date | after_published

The handout's copy has no hidden entries; instead a top-level `withheld_points = N` (written by
grader/release/rubric_filter.py) says how many points only Gradescope grades.

A contract's rubric (grader/rubric_cs336.toml) names a `base` (a rubric beside it) and states only
how it differs: it grades the base's tests in the base's order, but those its [[not_in_contract]]
tables leave out, and each [[test]] table changes the fields it gives of the base's test of its id
(points, a name). So a test's number, names and translations have one source.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import i18n
from .errors import RubricError
from .terms import VISIBILITIES, Visibility

PARTS = (1, 2, 3, "efficiency")


@dataclass(frozen=True)
class Entry:
    id: str
    number: str
    name: str
    part: int | str
    points: float
    visibility: str
    name_zh: str | None = None  # the name in a Chinese report (English when the rubric has none)

    def shown_name(self) -> str:
        """The name in the report's language: a rubric without it falls back to the English one."""
        if i18n.current() == "zh" and self.name_zh:
            return self.name_zh
        return self.name

    def covers(self, nodeid: str) -> bool:
        return nodeid == self.id or (nodeid.startswith(self.id + "[") and "[" not in self.id)


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RubricError(f"{path}: rubric file not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise RubricError(f"{path}: cannot read the rubric ({e})") from None


def withheld_points(path: Path) -> float:
    """Points of the tests this copy of the rubric leaves out (0 in the kit)."""
    value = _read(Path(path)).get("withheld_points", 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise RubricError(f"{path}: withheld_points must be a non-negative number")
    return value


def load(path: Path) -> list[Entry]:
    path = Path(path)
    data = _read(path)
    tables = _based(path, data) if "base" in data else data.get("test")
    if not isinstance(tables, list) or not tables:
        raise RubricError(f"{path}: no [[test]] tables")
    entries, ids, numbers = [], set(), set()
    for i, t in enumerate(tables, 1):
        where = f"{path}: [[test]] #{i}"
        entry = _entry(t, where)
        if entry.id in ids or entry.number in numbers:
            raise RubricError(f"{where}: duplicate id or number ({entry.id}, {entry.number})")
        ids.add(entry.id)
        numbers.add(entry.number)
        entries.append(entry)
    _check_total(path, data.get("total"), entries)
    return entries


def _entry(t: dict, where: str) -> Entry:
    """One [[test]] table as an entry, refused (naming `where`) unless every field is well formed."""
    try:
        entry = Entry(
            id=t["id"],
            number=t["number"],
            name=t["name"],
            part=t["part"],
            points=t["points"],
            visibility=t.get("visibility", Visibility.VISIBLE),
            name_zh=t.get("name_zh"),
        )
    except (KeyError, TypeError) as e:
        raise RubricError(f"{where}: missing key {e}") from None
    if not (isinstance(entry.id, str) and "::" in entry.id):
        raise RubricError(f"{where}: id must look like 'test_file.py::test_name'")
    if not isinstance(entry.number, str) or not isinstance(entry.name, str):
        raise RubricError(f"{where}: number and name must be strings")
    if entry.name_zh is not None and not (isinstance(entry.name_zh, str) and entry.name_zh.strip()):
        raise RubricError(f"{where}: name_zh, when given, must be a non-empty string")
    if entry.part not in PARTS or isinstance(entry.part, bool):
        raise RubricError(f'{where}: part must be one of 1, 2, 3, "efficiency"')
    if isinstance(entry.points, bool) or not isinstance(entry.points, (int, float)) or entry.points < 0:
        raise RubricError(f"{where}: points must be a non-negative number")
    if entry.visibility not in VISIBILITIES:
        raise RubricError(f"{where}: visibility must be one of {', '.join(VISIBILITIES)}")
    return entry


def _check_total(path: Path, declared: object, entries: list[Entry]) -> None:
    """A declared total must be what the points add up to (a slip in one entry's points)."""
    if declared is None:
        return
    if isinstance(declared, bool) or not isinstance(declared, (int, float)):
        raise RubricError(f"{path}: total must be a number")
    points = sum(e.points for e in entries)
    if abs(points - declared) > 1e-9:
        raise RubricError(
            f"{path}: the tests' points add up to {points:g}, but the rubric declares total = {declared:g}"
        )


def base_tests(path: Path, data: dict) -> dict[str, dict]:
    """The [[test]] tables of the rubric `data` (read from `path`) is based on, by id."""
    base = data["base"]
    if not isinstance(base, str) or not base:
        raise RubricError(f"{path}: base must name the rubric file this one changes")
    tables = _read(Path(path).parent / base).get("test")
    if not isinstance(tables, list):
        raise RubricError(f"{path}: its base {base} has no [[test]] tables")
    return {t.get("id"): t for t in tables if isinstance(t, dict)}


def _based(path: Path, data: dict) -> list[dict]:
    """The [[test]] tables of a rubric that states only how it differs from its base."""
    base = base_tests(path, data)
    changes, left_out = {}, set()
    for i, t in enumerate(data.get("test", []), 1):
        if not isinstance(t, dict) or t.get("id") not in base:
            raise RubricError(f"{path}: [[test]] #{i}: id must be a test of {data['base']}")
        if t["id"] in changes:
            raise RubricError(f"{path}: [[test]] #{i}: a second table for {t['id']}")
        changes[t["id"]] = t
    for i, t in enumerate(data.get("not_in_contract", []), 1):
        if not isinstance(t, dict) or t.get("id") not in base or t["id"] in changes:
            raise RubricError(
                f"{path}: [[not_in_contract]] #{i}: id must be a test of {data['base']} with no [[test]] table"
            )
        left_out.add(t["id"])
    return [base[i] | changes.get(i, {}) for i in base if i not in left_out]


def number_key(number: str) -> list[tuple[int, int, str]]:
    """Sort "1.2" before "1.10"; non-numeric parts (like "E.1") sort after digits."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in number.split(".")]
