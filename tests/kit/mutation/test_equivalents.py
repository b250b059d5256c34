"""tests/mutation/equivalent.toml stays true to the reference: every mutant it lists still exists.

Grading the mutants takes hours (`make mutation`); enumerating them takes seconds. So this test only
enumerates: each listed mutant must be one that Cosmic Ray still makes from solution/bpe today, each
has a one-line reason, none is listed twice. A reference edit that removes or rewrites a listed line
fails here, and the entry is re-checked or dropped.
"""

from __future__ import annotations

import sys

import pytest

from grader.paths import KIT_ROOT

sys.path.insert(0, str(KIT_ROOT / "tests" / "mutation"))
from mutants import (  # the kit's mutation tools, tests/mutation/
    EQUIVALENT,
    MODULE_PARTS,
    SOLUTION,
    annotation_spans,
    choose,
    entry_key,
    in_annotation,
    load_equivalents,
    module_path,
    name_all,
    stable_order,
    work_items,
)

FIELDS = {"module", "function", "operator", "line", "mutated", "reason"}  # and "nth", when not 0
ENTRIES = load_equivalents()


def current_keys(module: str, operators: set[str], lines: set[str]) -> set[tuple]:
    """The names of the mutants Cosmic Ray makes today of these lines of bpe/`module`.py."""
    sources = {module: module_path(SOLUTION, module).read_text(encoding="utf-8")}
    return {m.key for m in name_all(work_items(SOLUTION, [module], operators), sources, lines).values()}


def test_every_entry_has_its_fields_and_a_one_line_reason():
    for entry in ENTRIES:
        assert set(entry) - {"nth"} == FIELDS, (
            f"{EQUIVALENT.name}: {entry} has fields {sorted(entry)}, not {sorted(FIELDS)}"
        )
        assert entry["module"] in MODULE_PARTS, f"{EQUIVALENT.name}: {entry['module']} is not a graded module"
        reason = entry["reason"].strip()
        assert reason and "\n" not in reason, f"{EQUIVALENT.name}: {entry_key(entry)} needs a one-line reason"


def test_no_mutant_is_listed_twice():
    keys = [entry_key(e) for e in ENTRIES]
    assert len(keys) == len(set(keys)), [k for k in keys if keys.count(k) > 1]


@pytest.mark.parametrize("module", sorted({e["module"] for e in ENTRIES}))
def test_every_listed_mutant_is_still_made(module):
    listed = {entry_key(e) for e in ENTRIES if e["module"] == module}
    gone = listed - current_keys(
        module, {key[2] for key in listed}, {line for key in listed for line in key[3].split(" | ")}
    )
    assert not gone, (
        f"{EQUIVALENT.name}: Cosmic Ray no longer makes these mutants of bpe/{module}.py: {sorted(gone)}"
    )


def test_a_mutant_is_named_by_its_line_and_what_it_becomes():
    source = module_path(SOLUTION, "pretokenize").read_text(encoding="utf-8")
    lines = source.splitlines()
    mutants = list(name_all(work_items(SOLUTION, ["pretokenize"]), {"pretokenize": source}).values())
    assert mutants and len({m.key for m in mutants}) == len(mutants), "two mutants share a name"
    for m in mutants:
        assert m.line != m.mutated and m.line.split(" | ")[0] == lines[m.lineno - 1].strip(), m


def test_equal_changes_to_equal_lines_are_told_apart():
    source = module_path(SOLUTION, "char_bpe").read_text(encoding="utf-8")
    items = work_items(SOLUTION, ["char_bpe"], {"core/ReplaceBreakWithContinue"})
    train = [m for m in name_all(items, {"char_bpe": source}).values() if m.function == "train"]
    assert [m.nth for m in train] == list(range(len(train))) and len(train) >= 2


TOY = """\
def f(path: str | bytes, n: int = 1 | 2) -> int | None:
    return n | 4
"""


def test_mutants_in_annotations_are_left_out_and_the_sample_is_fixed(tmp_path):
    (tmp_path / "bpe").mkdir()
    module_path(tmp_path, "toy").write_text(TOY, encoding="utf-8")
    items = work_items(tmp_path, ["toy"], {"core/ReplaceBinaryOperator_BitOr_Add"})
    named = name_all(items, {"toy": TOY})
    typed = {named[w.job_id].mutated for w in items if in_annotation(w, annotation_spans(TOY))}
    kept = {named[w.job_id].mutated for w in items if not in_annotation(w, annotation_spans(TOY))}
    assert typed == {
        "def f(path: str + bytes, n: int = 1 | 2) -> int | None:",
        "def f(path: str | bytes, n: int = 1 | 2) -> int + None:",
    }
    assert kept == {"def f(path: str | bytes, n: int = 1 + 2) -> int | None:", "return n + 4"}
    again = work_items(tmp_path, ["toy"])
    assert [stable_order(w) for w in choose(again, 3)] == [
        stable_order(w) for w in choose(work_items(tmp_path, ["toy"]), 3)
    ]
    assert len(choose(again, 3)) == 3 and choose(again, None) == again
