"""The catalogue proves the grader: every mutant, variant and slow submission, graded through the
real CLI (`python -m grader grade --tests SELECT`, as `make grade` does, jailed), loses exactly
the points catalogue.toml says, and the same cells as the committed kill matrix.

Each row is graded on its `select`ed rubric tests (all of them for variants), two at a time; a
representative subset is graded twice and must give identical results.json apart from timings.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

import catalogue
import jail
import kill_matrix
import pytest
from prefetch import Prefetch, row_group, selected_params

from grader import contracts, rubric
from grader.farm import records, runner
from grader.farm.runner import Setup
from grader.paths import DEFAULT_RUBRIC
from grader.request import GradeRequest
from grader.sandbox.isolation import Isolation

WHOLE = "BPE_KIT_CATALOGUE=smoke: a quick run grades only the smoke rows (the whole catalogue takes ~4 min on 2 cores)"


def _param(entry: catalogue.Entry):
    skip = pytest.mark.skipif(not (entry.smoke or catalogue.grade_all()), reason=WHOLE)
    return pytest.param(entry.name, marks=[skip, row_group(entry.name)])


pytestmark = pytest.mark.slow

ENTRIES = [e for e in catalogue.load() if e.kind != "hostile"]
ID_OF = {e.number: e.id for e in rubric.load(DEFAULT_RUBRIC)}
# Graded twice: a full-suite variant, a mutant of each part, and a speed-gate case.
TWICE = ["heap", "part1_tie_smaller_pair", "train_specials_last", "decode_per_token", "slow_naive_trainer"]


@pytest.fixture(scope="module")
def gradings(request, tmp_path_factory):
    work = tmp_path_factory.mktemp("catalogue")

    def job(key: str) -> jail.Jailed:
        name = key.partition("#")[0]
        entry = catalogue.by_name(name)
        sub = catalogue.materialize(entry, work / key / "submission")
        return jail.grade_in_jail(
            sub,
            work / key / "out",
            tests=entry.select or None,
            linger=entry.linger,
            suite_records=work / key / "records" / "suite.json",
        )

    pool = Prefetch(job)
    wanted = lambda n: catalogue.by_name(n).smoke or catalogue.grade_all()  # noqa: E731
    pool.ahead(n for n in selected_params(request, "name") if wanted(n))
    pool.ahead(f"{n}#2" for n in selected_params(request, "twice") if wanted(n))
    yield pool
    pool.close()


def _check_clean_run(name: str, done: jail.Jailed) -> dict:
    assert done.returncode == 0, f"{name}: the grader exited {done.returncode}:\n{done.stderr[-3000:]}"
    assert done.results is not None, f"{name}: no valid results.json"
    assert done.out_files == ["junit.xml", "results.json"], f"{name}: report folder holds {done.out_files}"
    assert not done.leftovers, f"{name}: processes outlived the grading: {done.leftovers}"
    return done.results


@pytest.mark.parametrize("name", [_param(e) for e in ENTRIES])
def test_grade_matches_catalogue(name, gradings, request):
    entry = catalogue.by_name(name)
    if entry.gap:
        request.applymarker(pytest.mark.xfail(strict=True, reason=entry.gap))
    results = _check_clean_run(name, gradings.result(name))
    wrong = []
    for t in results["tests"]:
        test_id = ID_OF[t["number"]]
        lost = t["score"] < t["max_score"]
        if lost != entry.must_fail(test_id):
            verdict = "lost" if lost else "kept"
            first = t["output"].strip().splitlines()[:3]
            wrong.append(
                f"{t['number']} {test_id}: {verdict} its points, expected otherwise. {' / '.join(first)}"
            )
    assert not wrong, f"{name} ({entry.why}):\n" + "\n".join(wrong)
    for t in results["tests"]:  # what the student reads: e.g. "Same cause as 2.3"
        words = entry.feedback.get(ID_OF[t["number"]])
        assert words is None or words in t["output"], (
            f"{name}: {t['number']} should say {words!r}:\n{t['output']}"
        )
    graded = {ID_OF[t["number"]] for t in results["tests"]}
    primary = [i for i in ID_OF.values() if any(fnmatchcase(i, p) for p in entry.fails)]
    missing = sorted(i for i in primary if i not in graded)
    assert not missing or entry.fails == ("*",), f"{name}: its selection did not grade {missing}"
    if entry.kind in ("variant", "harmless"):  # full marks: of the whole rubric, or of its selection
        assert (
            results["score"]
            == results["extra_data"]["max_score"]
            == (100 if not entry.select else sum(t["max_score"] for t in results["tests"]))
        )


@pytest.mark.parametrize("name", [_param(e) for e in ENTRIES])
def test_grade_matches_kill_matrix(name, gradings):
    _, rows = kill_matrix.parse(kill_matrix.MATRIX.read_text(encoding="utf-8"))
    assert name in rows, f"{name} has no row in kill_matrix.md: run tests/submissions/kill_matrix.py"
    results = _check_clean_run(name, gradings.result(name))
    observed = {n: c == "x" for n, c in kill_matrix.cells_of(results).items() if n != kill_matrix.LOST}
    differ = {n: lost for n, lost in observed.items() if rows[name].get(n) != lost}
    assert not differ, f"{name}: this grading and kill_matrix.md disagree on {sorted(differ)}"


def _suite_records(name: str, done: jail.Jailed) -> list[dict]:
    """The raw records the row's grade was built from (`bpe-kit grade --suite-records`)."""
    assert done.suite_records is not None, f"{name}: the grading wrote no --suite-records"
    return done.suite_records


def _farm_setup() -> Setup:
    return Setup(
        request=GradeRequest(),
        contract=contracts.resolve("kit"),
        entries=rubric.load(DEFAULT_RUBRIC),
        kit="kit",
        isolation="test",
        budget=1.0,
    )


def _grade(tests: list[dict]) -> list[tuple]:
    return [(t["number"], t["score"], t["status"], (t.get("extra_data") or {}).get("charged")) for t in tests]


@pytest.mark.parametrize("name", [_param(e) for e in ENTRIES])
def test_a_partial_farm_regrade_moves_no_total(name, gradings):
    """The row's records, as the farm's record of a grade (built by the one builder, as `bpe-kit
    grade` built the row's results.json), then every single test and every Part regraded with the
    same records through the farm's merge-and-build path: no total, score or status moves."""
    done = gradings.result(name)
    results = _check_clean_run(name, done)
    setup, recs = _farm_setup(), _suite_records(name, done)
    suite, tests, full = runner.rebuilt(
        setup, None, recs, submission="s", replaces_all=not catalogue.by_name(name).select
    )
    by_number = {t[0]: t for t in _grade(tests)}
    assert [by_number[t[0]] for t in _grade(results["tests"])] == _grade(results["tests"]), (
        f"{name}: the farm builds another grade than `bpe-kit grade` from the same records"
    )
    previous = {"status": "graded", "suite": suite, "full_run": full}
    total = records.total(tests)
    covered = [e for e in setup.entries if any(e.covers(r["nodeid"]) for r in recs)]
    subsets = [[e] for e in covered] + [
        [e for e in covered if str(e.part) == part] for part in dict.fromkeys(str(e.part) for e in covered)
    ]
    for subset in subsets:
        fresh = [r for r in recs if any(e.covers(r["nodeid"]) for e in subset)]
        _, again, _ = runner.rebuilt(setup, previous, fresh, submission="s", replaces_all=False)
        said = ", ".join(e.number for e in subset)
        assert records.total(again) == total, f"{name}: regrading {said} moved the total"
        assert _grade(again) == _grade(tests), f"{name}: regrading {said} moved a test's grade"


def _comparable(results: dict) -> dict:
    """results.json without what legitimately varies: total time, and measured figures in speed tests."""
    out = {k: v for k, v in results.items() if k != "execution_time"}
    tests = []
    for t in results["tests"]:
        t = dict(t)
        if ID_OF[t["number"]].startswith("test_efficiency.py::"):
            t["output"] = re.sub(r"\d+(\.\d+)?", "#", t["output"])
            figures = (t.get("extra_data") or {}).get("figures") or {}
            if figures:  # what was measured, as data: the numbers vary, their names do not
                masked = {k: v if isinstance(v, (str, bool)) else "#" for k, v in figures.items()}
                t["extra_data"] = {**t["extra_data"], "figures": masked}
        tests.append(t)
    out["tests"] = tests
    return out


@pytest.mark.parametrize("twice", [_param(catalogue.by_name(n)) for n in TWICE])
def test_grading_is_deterministic(twice, gradings):
    first = _check_clean_run(twice, gradings.result(twice))
    second = _check_clean_run(twice, gradings.result(f"{twice}#2"))
    assert _comparable(first) == _comparable(second)


POOLS = [e.name for e in ENTRIES if e.name.startswith("pool_")]
POOL_TESTS = "test_train or test_hidden_train or test_training_speed"


@pytest.mark.parametrize("name", POOLS)
def test_pool_variants_score_full_marks_in_the_weakest_isolation(name, tmp_path):
    """Without namespaces or a uid drop (as without root), a Pool's children still import bpe."""
    sub = catalogue.materialize(catalogue.by_name(name), tmp_path / "submission")
    done = jail.grade_in_jail(
        sub, tmp_path / "out", tests=POOL_TESTS, options=("--isolation", Isolation.PROCESS_GROUP)
    )
    results = _check_clean_run(name, done)
    assert results["extra_data"]["isolation"] == Isolation.PROCESS_GROUP
    lost = [
        f"{t['number']}: {t['output'].strip()[:300]}" for t in results["tests"] if t["score"] < t["max_score"]
    ]
    assert results["tests"] and not lost, f"{name} lost points with --isolation process-group:\n" + "\n".join(
        lost
    )
