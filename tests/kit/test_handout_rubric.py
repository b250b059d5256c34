"""The handout's points come from grader/rubric.toml and nowhere else.

The table between the rubric markers of assignment/README.md must be exactly what
`python -m assignment.build` generates; no other sentence of the handout may state points; and
hidden tests are summed, never named.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from handout_support import HANDOUT, ROOT

from assignment import build

needs_rubric = pytest.mark.skipif(not build.RUBRIC.is_file(), reason="grader/rubric.toml is not written yet")


@needs_rubric
def test_committed_points_table_is_the_generated_one():
    committed = build.current_block(build.HANDOUT.read_text(encoding="utf-8"))
    assert committed == build.render_points(build.load_rubric()), (
        "assignment/README.md is out of date: run `python -m assignment.build`"
    )


@needs_rubric
def test_build_check_agrees():
    result = subprocess.run(
        [sys.executable, "-m", "assignment.build", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


@needs_rubric
def test_hidden_tests_are_never_named():
    hidden = [t for t in build.load_rubric() if build.is_hidden(t)]
    text = "\n".join(p.read_text(encoding="utf-8") for p in HANDOUT)
    for test in hidden:
        assert test["id"] not in text
        assert f"| {test['name']} |" not in text


def test_committed_limits_table_is_the_generated_one():
    text = build.EFFICIENCY.read_text(encoding="utf-8")
    committed = build.current_block(text, build.BUDGETS_BEGIN, build.BUDGETS_END)
    assert committed == build.render_budgets(), (
        "assignment/part4_efficiency.md is out of date: run `python -m assignment.build`"
    )


def test_limits_are_ratios_to_the_reference_never_seconds():
    from grader import calibration

    table = build.render_budgets()
    for factor in calibration.FACTORS.values():
        assert f"{factor:g} x the reference solution's CPU time" in table
    for path in HANDOUT:
        text = path.read_text(encoding="utf-8")
        # The one place that names seconds: the generated block of every test's time limits, whose
        # fixed parts (a call's allowance, the idle stop) are seconds by design; its limits are ratios.
        block = build.current_block(text, build.LIMITS_BEGIN, build.LIMITS_END)
        assert not re.search(r"\b\d+(?:\.\d+)?\s*(?:s|sec|seconds?)\b", text.replace(block, "")), (
            f"{path.name} states a time limit in seconds"
        )


def test_every_tests_time_limit_is_stated_from_the_graders_own_constants():
    from grader import calibration
    from grader.sandbox import process

    text = build.render_time_limits()
    assert f"{calibration.TEST_FACTOR:g} x the CPU time the reference solution needs" in text
    assert f"each call {calibration.CALL_FACTOR:g} x the reference's slowest call" in text
    assert f"plus {calibration.CALL_ALLOWANCE_S:g} s for every call" in text
    assert f"{calibration.CHILD_ALLOWANCE_S:g} s for every process it runs" in text
    assert f"no CPU time for {process.IDLE_S:g} s" in text
    assert "added once to a call that runs other processes, not once per process" in text
    assert (
        build.current_block(build.HANDOUT.read_text(encoding="utf-8"), build.LIMITS_BEGIN, build.LIMITS_END)
        == text
    )


def test_points_are_stated_only_in_the_generated_table():
    pattern = re.compile(r"\b\d+(?:\.\d+)?\s+points?\b", re.IGNORECASE)
    for path in HANDOUT:
        text = path.read_text(encoding="utf-8")
        if path == build.HANDOUT:
            start, end = text.find(build.BEGIN), text.find(build.END)
            text = text[:start] + text[end:]
        assert not pattern.findall(text), f"{path.name} states points outside the rubric table"


RUBRIC = """
[[test]]
id = "test_part1.py::test_merge"
number = "1.1"
name = "merge is left to right"
part = 1
points = 4

[[test]]
id = "test_part1.py::test_trace"
number = "1.10"
name = "the low lower lowest trace"
part = 1
points = 6

[[test]]
id = "test_part1.py::test_later"
number = "1.2"
name = "state round trip"
part = 1
points = 2.5
visibility = "after_due_date"

[[test]]
id = "test_hidden_part2.py::test_secret_corpus"
number = "2.9"
name = "secret corpus merges"
part = 2
points = 7
visibility = "hidden"

[[test]]
id = "test_hidden_part3.py::test_other_tokenizer"
number = "3.9"
name = "encode: another secret tokenizer"
part = 3
points = 2
visibility = "after_due_date"

[[test]]
id = "test_part3.py::test_name_with_a_pipe"
number = "3.1"
name = "encode: a | b"
part = 3
points = 1

[[test]]
id = "test_efficiency.py::test_speed"
number = "4.1"
name = "train_bpe speed"
part = "efficiency"
points = 5
"""


def test_table_groups_by_part_orders_by_number_and_sums_hidden_tests(tmp_path):
    path = tmp_path / "rubric.toml"
    path.write_text(RUBRIC, encoding="utf-8")
    table = build.render_table(build.load_rubric(path))
    lines = table.splitlines()
    assert lines[2] == "| **Part 1: character-level BPE** | | **12.5** |"
    assert [line.split(" | ")[0] for line in lines[3:6]] == ["| 1.1", "| 1.2", "| 1.10"]
    assert "state round trip (result shown after the due date) | 2.5" in table
    assert "| | hidden tests: 7 points | 7 |" in table
    assert "| | hidden tests: 2 points | 2 |" in table  # a test_hidden_ file, whatever its visibility
    assert "secret" not in table and "test_hidden" not in table
    assert "| 3.1 | encode: a \\| b | 1 |" in table
    assert "| **Part 4: efficiency** | | **5** |" in table
    assert lines[-1] == "| | **Total** | **27.5** |"


def test_bad_rubric_is_one_clear_error_naming_the_file(tmp_path):
    path = tmp_path / "rubric.toml"
    path.write_text(RUBRIC.replace('part = "efficiency"', "part = 5"), encoding="utf-8")
    with pytest.raises(build.RubricError, match=r"rubric\.toml.*test_efficiency\.py::test_speed.*part"):
        build.load_rubric(path)
    path.write_text("[[test]\n", encoding="utf-8")
    with pytest.raises(build.RubricError, match=r"rubric\.toml"):
        build.load_rubric(path)


def test_replace_block_keeps_everything_outside_the_markers():
    text = f"intro\n{build.BEGIN}\nold table\n{build.END}\noutro\n"
    assert build.replace_block(text, "NEW") == f"intro\n{build.BEGIN}\nNEW\n{build.END}\noutro\n"
    with pytest.raises(build.RubricError, match="markers"):
        build.replace_block("no markers here", "NEW")
