"""The handout's points come from grader/rubric.toml and nowhere else, in every language.

The table between the rubric markers of assignment/README.md (and of its translation,
assignment/zh/README.md) must be exactly what `python -m assignment.build` generates; no other
sentence of the handout may state points; hidden tests are summed, never named; and a test or a kit
rule whose text is missing in one language stops the build.
"""

from __future__ import annotations

import re
import string
import subprocess
import sys

import pytest
from handout_support import ALL_HANDOUTS, LANGUAGES, ROOT

from assignment import build, handout_words
from grader import rubric

# How each language states a number of seconds, and a number of points, in prose.
SECONDS = {"en": r"\b\d+(?:\.\d+)?\s*(?:s|sec|seconds?)\b", "zh": r"\d+(?:\.\d+)?\s*秒"}
POINTS = {"en": r"\b\d+(?:\.\d+)?\s+points?\b", "zh": r"\d+(?:\.\d+)?\s*分(?![词钟之])"}


def _lang(path) -> str:
    return next(lang for lang in LANGUAGES if path.parent == build.LANGUAGES[lang])


needs_rubric = pytest.mark.skipif(not build.RUBRIC.is_file(), reason="grader/rubric.toml is not written yet")


@needs_rubric
@pytest.mark.parametrize("lang", LANGUAGES)
def test_committed_points_table_is_the_generated_one(lang):
    path = build.translated(build.HANDOUT, lang)
    committed = build.current_block(path.read_text(encoding="utf-8"))
    assert committed == build.render_points(build.load_rubric(), lang), (
        f"{path.relative_to(ROOT)} is out of date: run `python -m assignment.build`"
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
    text = "\n".join(p.read_text(encoding="utf-8") for p in ALL_HANDOUTS)
    for test in hidden:
        assert test["id"] not in text
        for key in handout_words.RUBRIC_NAME.values():
            assert test[key] not in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_committed_limits_table_is_the_generated_one(lang):
    path = build.translated(build.EFFICIENCY, lang)
    committed = build.current_block(path.read_text(encoding="utf-8"), build.BUDGETS_BEGIN, build.BUDGETS_END)
    assert committed == build.render_budgets(lang), (
        f"{path.relative_to(ROOT)} is out of date: run `python -m assignment.build`"
    )


def test_limits_are_ratios_to_the_reference_never_seconds():
    from grader import budgets

    for factor in budgets.FACTORS.values():
        assert f"{factor:g} x the reference solution's CPU time" in build.render_budgets("en")
        assert f"参考答案 CPU 时间的 {factor:g} 倍" in build.render_budgets("zh")
    for path in ALL_HANDOUTS:
        text = path.read_text(encoding="utf-8")
        # The one place that names seconds: the generated block of every test's time limits, whose
        # fixed parts (a call's allowance, the idle stop) are seconds by design; its limits are ratios.
        block = build.current_block(text, build.LIMITS_BEGIN, build.LIMITS_END)
        assert not re.search(SECONDS[_lang(path)], text.replace(block, "")), (
            f"{path.name} states a time limit in seconds"
        )


def test_every_tests_time_limit_is_stated_from_the_graders_own_constants():
    from grader import budgets
    from grader.sandbox import process

    text = build.render_time_limits()
    assert f"{budgets.TEST_FACTOR:g} x the CPU time the reference solution needs" in text
    assert f"each call {budgets.CALL_FACTOR:g} x the reference's slowest call" in text
    assert f"plus {budgets.CALL_ALLOWANCE_S:g} s for every call" in text
    assert f"{budgets.CHILD_ALLOWANCE_S:g} s for every process it runs" in text
    assert f"no CPU time for {process.IDLE_S:g} s" in text
    assert "added once to a call that runs other processes, not once per process" in text
    zh = build.render_time_limits("zh")
    assert f"所需 CPU 时间的 {budgets.TEST_FACTOR:g} 倍" in zh
    assert f"最慢一次调用的 {budgets.CALL_FACTOR:g} 倍" in zh
    assert f"每次调用 {budgets.CALL_ALLOWANCE_S:g} 秒" in zh
    assert f"每个进程 {budgets.CHILD_ALLOWANCE_S:g} 秒" in zh
    assert f"连续 {process.IDLE_S:g} 秒不用 CPU 时间" in zh
    for lang, limits in (("en", text), ("zh", zh)):
        path = build.translated(build.HANDOUT, lang)
        assert (
            build.current_block(path.read_text(encoding="utf-8"), build.LIMITS_BEGIN, build.LIMITS_END)
            == limits
        )


def test_points_are_stated_only_in_the_generated_table():
    for path in ALL_HANDOUTS:
        text = path.read_text(encoding="utf-8")
        if path.name == build.HANDOUT.name:
            start, end = text.find(build.BEGIN), text.find(build.END)
            text = text[:start] + text[end:]
        pattern = re.compile(POINTS[_lang(path)], re.IGNORECASE)
        assert not pattern.findall(text), f"{path.name} states points outside the rubric table"


def test_the_points_pattern_finds_points_in_each_language():
    assert re.search(POINTS["en"], "worth 4 points") and re.search(POINTS["zh"], "值 4 分")
    assert not re.search(POINTS["zh"], "第 2 部分、3 分词器、5 分钟")


RUBRIC = """
[[test]]
id = "test_part1.py::test_merge"
number = "1.1"
name = "merge is left to right"
name_zh = "中文：merge is left to right"
part = 1
points = 4

[[test]]
id = "test_part1.py::test_trace"
number = "1.10"
name = "the low lower lowest trace"
name_zh = "中文：the low lower lowest trace"
part = 1
points = 6

[[test]]
id = "test_part1.py::test_later"
number = "1.2"
name = "state round trip"
name_zh = "中文：state round trip"
part = 1
points = 2.5
visibility = "after_due_date"

[[test]]
id = "test_hidden_part2.py::test_secret_corpus"
number = "2.9"
name = "secret corpus merges"
name_zh = "中文：secret corpus merges"
part = 2
points = 7
visibility = "hidden"

[[test]]
id = "test_hidden_part3.py::test_other_tokenizer"
number = "3.9"
name = "encode: another secret tokenizer"
name_zh = "中文：encode: another secret tokenizer"
part = 3
points = 2
visibility = "after_due_date"

[[test]]
id = "test_part3.py::test_name_with_a_pipe"
number = "3.1"
name = "encode: a | b"
name_zh = "中文：encode: a | b"
part = 3
points = 1

[[test]]
id = "test_efficiency.py::test_speed"
number = "4.1"
name = "train_bpe speed"
name_zh = "中文：train_bpe speed"
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


def test_the_chinese_table_is_the_same_table_in_chinese(tmp_path):
    path = tmp_path / "rubric.toml"
    path.write_text(RUBRIC, encoding="utf-8")
    tests = build.load_rubric(path)
    english, chinese = build.render_table(tests, "en"), build.render_table(tests, "zh")
    assert len(english.splitlines()) == len(chinese.splitlines())
    assert chinese.splitlines()[2] == "| **第 1 部分：字符级 BPE** | | **12.5** |"
    assert "中文：state round trip（截止日期后才显示结果） | 2.5" in chinese
    assert "| | 隐藏测试：共 7 分 | 7 |" in chinese and "secret" not in chinese
    assert "| 3.1 | 中文：encode: a \\| b | 1 |" in chinese
    assert chinese.splitlines()[-1] == "| | **总分** | **27.5** |"


@pytest.mark.parametrize("key", list(handout_words.RUBRIC_NAME.values()))
def test_a_test_named_in_one_language_only_stops_the_build(tmp_path, key):
    path = tmp_path / "rubric.toml"
    path.write_text(re.sub(rf"(?m)^{key} = .*\n", "", RUBRIC, count=1), encoding="utf-8")
    with pytest.raises(build.RubricError, match=rf"rubric\.toml.*test_merge.*missing '{key}'"):
        build.load_rubric(path)


def test_every_rubric_test_has_its_name_in_every_language():
    for test in build.load_rubric():
        assert test["name"].strip() and test["name_zh"].strip(), test["number"]
    for entry in rubric.load(ROOT / "grader" / "rubric_cs336.toml"):  # the kit's names, or its own
        assert entry.name.strip() and (entry.name_zh or "").strip(), f"cs336: {entry.number}"


RULES = """
[[rule]]
rule = "Ties: the greater pair"
rule_zh = "频次相同时：取较大的字节对"
parts = [1, 2]
tests = ["1.1"]
"""


def test_a_rule_stated_in_one_language_only_stops_the_build(tmp_path):
    tests = [{"number": "1.1", "name": "merge", "name_zh": "合并", "part": 1, "points": 1}]
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    assert "| 频次相同时：取较大的字节对 | 第 1、2 部分 | 1.1 合并 |" in build.render_rules(
        tests, rules, "zh"
    )
    assert "| Ties: the greater pair | Parts 1 and 2 | 1.1 merge |" in build.render_rules(tests, rules, "en")
    for line in ('rule = "Ties: the greater pair"\n', 'rule_zh = "频次相同时：取较大的字节对"\n'):
        rules.write_text(RULES.replace(line, ""), encoding="utf-8")
        with pytest.raises(
            build.RubricError, match=r"rules\.toml: \[\[rule\]\] number 1: needs rule and rule_zh"
        ):
            build.render_rules(tests, rules, "en")


def test_every_language_has_the_same_templates_with_the_same_fields():
    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    english = handout_words.WORDS["en"]
    for lang, words in handout_words.WORDS.items():
        assert words.keys() == english.keys(), lang
        for key, template in words.items():
            assert fields(template) == fields(english[key]), f"{lang}: {key}"
    assert handout_words.RUBRIC_NAME.keys() == handout_words.RULE_TEXT.keys() == handout_words.WORDS.keys()
    assert set(handout_words.WORDS) == set(build.LANGUAGES) == set(LANGUAGES)


def test_the_cs336_rubric_names_a_kit_test_as_the_kit_does_in_both_languages():
    kit = {t["number"]: t for t in build.load_rubric()}
    for entry in rubric.load(ROOT / "grader" / "rubric_cs336.toml"):
        if entry.name == kit[entry.number]["name"]:
            assert entry.name_zh == kit[entry.number]["name_zh"], entry.number
