"""A grade in two processes (grader/suite/runner.py, `shards`): the efficiency tests beside the
others, with the same grade as in one."""

from __future__ import annotations

import catalogue
import pytest

from grader import api
from grader.paths import DEFAULT_TESTS_DIR, KIT_ROOT
from grader.suite.runner import EFFICIENCY, shards

E = f"{EFFICIENCY}::test_train_speed"
P = "test_part2.py::test_train_tiny_words"


def test_two_jobs_run_the_efficiency_tests_apart_and_nothing_twice():
    assert shards(DEFAULT_TESTS_DIR, None, None, 1) == [(None, ())]
    assert shards(DEFAULT_TESTS_DIR, None, None, 2) == [(None, (EFFICIENCY,)), ([EFFICIENCY], ())]
    assert shards(DEFAULT_TESTS_DIR, [P, E], None, 2) == [([P], ()), ([E], ())]
    assert shards(DEFAULT_TESTS_DIR, [P], None, 2) == [([P], ())]  # PART=2: one process
    assert shards(DEFAULT_TESTS_DIR, [E], None, 2) == [([E], ())]
    # A -k pattern's side is known only once collected: one process, as with one job.
    assert shards(DEFAULT_TESTS_DIR, None, "test_train", 2) == [(None, ())]


def test_a_tests_folder_without_efficiency_tests_runs_in_one(tmp_path):
    (tmp_path / "test_toy.py").write_text("def test_x():\n    pass\n")
    assert shards(tmp_path, None, None, 2) == [(None, ())]


def _graded(results: dict) -> list[tuple]:
    """Each test's grade and feedback, but a passed test's measured seconds."""
    return [
        (t["name"], t["score"], t["status"], t.get("output", "") if t["status"] != "passed" else "")
        for t in results["tests"]
    ]


@pytest.mark.slow
def test_the_reference_gets_full_marks_in_two_processes():
    grading = api.run(KIT_ROOT / "solution", jobs=2)
    assert grading.results["score"] == sum(t["max_score"] for t in grading.results["tests"]) > 0
    assert len({t["name"] for t in grading.results["tests"]}) == len(grading.results["tests"])


@pytest.mark.slow
def test_one_module_that_does_not_import_is_graded_alike_in_one_process_or_two(tmp_path):
    """Both processes meet the broken module: it is still named once, and every test graded alike."""
    sub = catalogue.materialize(catalogue.by_name("tokenizer_syntax_error"), tmp_path / "sub")
    one, two = api.run(sub, jobs=1).results, api.run(sub, jobs=2).results
    assert _graded(two) == _graded(one) and two["score"] == one["score"]
    assert two["output"] == one["output"] and one["output"].count("does not import") == 1
