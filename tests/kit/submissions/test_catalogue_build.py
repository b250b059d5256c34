"""The catalogue itself (fast, no grading): every row builds, says what it proves, and agrees with
the committed kill matrix. The gradings are in test_catalogue_matrix.py / test_catalogue_hostile.py."""

from __future__ import annotations

import filecmp
import py_compile

import catalogue
import kill_matrix
import pytest
from _pytest.mark.expression import Expression

from grader import rubric
from grader.paths import DEFAULT_RUBRIC, KIT_ROOT

ENTRIES = catalogue.load()
RUBRIC = rubric.load(DEFAULT_RUBRIC)
IDS = [e.id for e in RUBRIC]
NUMBER_OF = {e.id: e.number for e in RUBRIC}


def selected(expr: str) -> set[str]:
    """Rubric ids that `--tests EXPR` (pytest -k) selects: matched on file and function name."""
    if not expr:
        return set(IDS)
    compiled = Expression.compile(expr)
    out = set()
    for test_id in IDS:
        module, func = test_id.split("::")
        words = (module, func, module.removesuffix(".py"))
        if compiled.evaluate(lambda s, *_, words=words: any(s.lower() in w.lower() for w in words)):
            out.add(test_id)
    return out


def expected_failures(entry: catalogue.Entry) -> set[str]:
    return {i for i in IDS if entry.must_fail(i)}


def test_the_catalogue_is_big_enough():
    kinds = [e.kind for e in ENTRIES]
    assert kinds.count("mutant") >= 20
    assert kinds.count("hostile") >= 15
    assert kinds.count("variant") >= 2
    assert kinds.count("slow") >= 2


@pytest.mark.parametrize("name", [e.name for e in ENTRIES])
def test_entry_builds_and_compiles(name, tmp_path):
    entry = catalogue.by_name(name)
    sub = catalogue.materialize(entry, tmp_path / "sub", fill={"LISTEN_PORT": "9"})
    for f in sorted((sub / "bpe").rglob("*.py")):
        if f.relative_to(sub).as_posix() in entry.uncompilable:
            with pytest.raises(py_compile.PyCompileError):
                py_compile.compile(str(f), cfile=str(tmp_path / "c.pyc"), doraise=True)
            continue
        py_compile.compile(str(f), cfile=str(tmp_path / "c.pyc"), doraise=True)
    assert all((sub / f).is_file() for f in entry.uncompilable), f"{name}: uncompilable names a missing file"
    solution = KIT_ROOT / "solution" / "bpe"
    changed = [
        f
        for f in (sub / "bpe").rglob("*.py")
        if not (solution / f.name).is_file() or not filecmp.cmp(f, solution / f.name, shallow=False)
    ]
    if entry.kind == "variant":
        shared = [
            f.name
            for f in (sub / "bpe").glob("*.py")
            if (solution / f.name).is_file() and filecmp.cmp(f, solution / f.name, shallow=False)
        ]
        assert not shared, f"variant {name} must be independent of the reference, but shares {shared}"
    else:
        assert changed, f"{name} builds to an exact copy of the reference: it tests nothing"


@pytest.mark.parametrize("name", [e.name for e in ENTRIES])
def test_entry_expectations_name_real_tests(name):
    entry = catalogue.by_name(name)
    for pattern in (*entry.fails, *entry.collateral):
        assert any(entry.must_fail(i) and _matches(pattern, i) for i in IDS), (
            f"{name}: {pattern!r} matches no rubric test"
        )
    chosen = selected(entry.select)
    assert chosen, f"{name}: select {entry.select!r} selects no rubric test"
    primary = {i for i in IDS if any(_matches(p, i) for p in entry.fails)}
    missed = sorted(i for i in primary if i not in chosen and entry.kind != "hostile")
    assert not missed, f"{name}: select {entry.select!r} leaves out tests it must fail: {missed}"
    if entry.kind != "variant" and entry.fails != ("*",):
        assert chosen - expected_failures(entry), (
            f"{name}: select {entry.select!r} holds no test it must keep passing"
        )


def _matches(pattern: str, test_id: str) -> bool:
    from fnmatch import fnmatchcase

    return fnmatchcase(test_id, pattern)


def test_a_replacement_must_match_exactly_once(tmp_path):
    good = catalogue.by_name("decode_strict")
    missing = catalogue.Entry(
        **{
            **good.__dict__,
            "build": {
                "replace": [
                    {"file": "bpe/tokenizer.py", "old": "this text is not in the reference", "new": ""}
                ]
            },
        }
    )
    with pytest.raises(catalogue.CatalogueError, match="exactly one occurrence"):
        catalogue.materialize(missing, tmp_path / "a")
    twice = catalogue.Entry(
        **{**good.__dict__, "build": {"replace": [{"file": "bpe/tokenizer.py", "old": "self", "new": "me"}]}}
    )
    with pytest.raises(catalogue.CatalogueError, match=r"found [0-9]+"):
        catalogue.materialize(twice, tmp_path / "b")


def test_an_unfilled_placeholder_is_an_error(tmp_path):
    network = catalogue.by_name("network")
    with pytest.raises(catalogue.CatalogueError, match="LISTEN_PORT"):
        catalogue.materialize(network, tmp_path / "n")


def test_kill_matrix_agrees_with_the_catalogue():
    numbers, rows = kill_matrix.parse(kill_matrix.MATRIX.read_text(encoding="utf-8"))
    assert numbers == [e.number for e in RUBRIC], (
        "kill_matrix.md is out of date with the rubric: regenerate it"
    )
    graded = [e for e in ENTRIES if e.kind != "hostile"]
    assert sorted(rows) == sorted(e.name for e in graded), "kill_matrix.md rows differ from the catalogue"
    for entry in graded:
        want = {NUMBER_OF[i] for i in expected_failures(entry)}
        got = {n for n, failed in rows[entry.name].items() if failed}
        if entry.gap:  # a known hole in the graded suite: the row may fail less than it should
            assert got < want, f"{entry.name} is now caught: drop its `gap` ({entry.gap})"
            continue
        assert got == want, (
            f"{entry.name}: the full grading fails {sorted(got)} but the catalogue expects {sorted(want)}"
        )
        if entry.kind in ("mutant", "slow"):
            assert got, f"{entry.name} survives the whole graded suite"


def test_one_bug_rows_lose_at_most_one_faults_cap():
    """One cause, one charge (grader/charges.py): a row with one bug loses at most CAP points in
    the full grading, unless its `over_cap` says why; a row that no longer needs that says so."""
    from grader.charges import CAP

    lost = kill_matrix.points_lost(kill_matrix.MATRIX.read_text(encoding="utf-8"))
    graded = [e for e in ENTRIES if e.kind != "hostile"]
    assert sorted(lost) == sorted(e.name for e in graded), (
        "kill_matrix.md has no `lost` column: regenerate it"
    )
    over = {e.name: lost[e.name] for e in graded if e.bugs == 1 and not e.over_cap and lost[e.name] > CAP}
    assert not over, (
        f"one-bug rows that lose more than {CAP} points (fix the suite, or say why in over_cap): {over}"
    )
    stale = [e.name for e in graded if e.over_cap and lost[e.name] <= CAP]
    assert not stale, f"rows within the cap whose over_cap is no longer needed: {stale}"


def test_two_bug_rows_lose_more_than_either_bug_alone():
    """Each of two independent bugs is charged: the row loses more than its first bug's cap allows
    alone, and every test its `fails` names (checked with the matrix above)."""
    lost = kill_matrix.points_lost(kill_matrix.MATRIX.read_text(encoding="utf-8"))
    rows = [e for e in ENTRIES if e.bugs == 2]
    assert len(rows) >= 3
    singles = {e.name: lost[e.name] for e in ENTRIES if e.bugs == 1 and e.name in lost}
    for entry in rows:
        alone = [n for n in singles if n != entry.name and set(_fails(n)) < set(_fails(entry.name))]
        assert alone, f"{entry.name}: no one-bug row holds one of its bugs alone"
        assert all(lost[entry.name] > singles[n] for n in alone), (entry.name, alone, lost[entry.name])


def _fails(name: str) -> set[str]:
    return expected_failures(catalogue.by_name(name))


def test_the_handout_states_the_cap():
    from grader.charges import CAP

    handout = (KIT_ROOT / "assignment" / "README.md").read_text(encoding="utf-8")
    readme = (KIT_ROOT / "README.md").read_text(encoding="utf-8")
    assert f"costs at most {CAP} points in all" in handout
    assert f"costs at most {CAP} points in all" in readme
