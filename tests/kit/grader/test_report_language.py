"""The grade in the student's language: how the language is chosen, and the Chinese report at 80
columns, tested as the English one is (tests/kit/grader/test_student_loop.py)."""

from __future__ import annotations

import dataclasses
import itertools
import subprocess
import sys
import textwrap

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from grader import i18n, report, rubric, textwidth
from grader.budgets import Budget
from grader.charges import charge
from grader.checks import speed
from grader.checks.merge_fault import TIE_BREAK
from grader.checks.messages import explain_vocab
from grader.paths import KIT_ROOT
from grader.scoring import Scored

FULL_RUBRIC = rubric.load(KIT_ROOT / "grader/rubric.toml")
# A name longer than any column, for the table's wrapping (the rubric's own name_zh when it has one).
LONG_NAME = (
    "分词器的编码结果与逐块流式编码的结果在任何切分方式下都必须完全一致（包括空块、单字符块和特殊词元）"
)


# --- choosing the language ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL outvotes LANG, as in gettext
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LANGUAGE": "fr:zh_CN", "LC_ALL": "en_US.UTF-8"}, "zh"),  # the first language it has
    ],
)
def test_the_environment_chooses_the_language_as_gettext_does(environ, lang):
    assert i18n.from_environment(environ) == lang


def _grade_cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=KIT_ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "env", "chinese"),
    [
        (["--lang", "zh"], {"LANG": "C.UTF-8"}, True),
        (["--lang", "zh_CN.UTF-8"], {}, True),
        ([], {"LANG": "zh_CN.UTF-8"}, True),
        ([], {"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, False),
        (["--lang", "en"], {"LANG": "zh_CN.UTF-8"}, False),
    ],
)
def test_the_command_line_speaks_the_language_asked_for(args, env, chinese, tmp_path):
    r = _grade_cli("zip", str(tmp_path), "--out", str(tmp_path / "s.zip"), *args, env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    said = r.stderr.split("error: ", 1)[1]
    assert said.startswith(str(tmp_path)) and f"{tmp_path}/bpe/__init__.py" in said  # data unchanged
    assert ("这里没有 bpe/ 包" in said) == chinese and ("no bpe/ package here" in said) == (not chinese)


def test_an_unknown_language_is_one_clear_line(tmp_path):
    r = _grade_cli("zip", str(tmp_path), "--lang", "klingon", env={})
    assert r.returncode == 2 and "no catalogue for 'klingon'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "makefile", [KIT_ROOT / "Makefile", KIT_ROOT / "grader/release/templates/student.Makefile"]
)
def test_make_grade_lang_reaches_the_grader_over_the_environment(makefile):
    """`make grade LANG=zh` passes --lang: an LC_ALL in the environment cannot outvote it; a LANG
    from the environment is left to the grader to read."""

    def planned(*words, env):
        argv = ["make", "-n", "-f", str(makefile), "-C", str(KIT_ROOT), "grade", "PY=python3", *words]
        r = subprocess.run(argv, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", **env})
        assert r.returncode == 0, r.stderr
        return next(line for line in r.stdout.splitlines() if " grade " in line)

    assert planned("LANG=zh", env={"LC_ALL": "en_US.UTF-8"}).endswith("--lang 'zh'")
    assert planned("LANG=zh_CN.UTF-8", env={}).endswith("--lang 'zh_CN.UTF-8'")
    assert "--lang" not in planned(env={"LANG": "zh_CN.UTF-8"})


# --- the Chinese report ------------------------------------------------------------------------


def _chinese_scored() -> list[Scored]:
    """Every rubric entry, named in Chinese; a long Chinese feedback, a fault shared by three tests,
    two stubs and two measured gates, all worded by the catalogue."""
    out = []
    for e in FULL_RUBRIC:
        e = dataclasses.replace(e, name_zh=LONG_NAME if e.number == "3.10" else e.name_zh or f"测试{e.name}")
        s = Scored(e, "passed", e.points, "", "", 0.25)
        if e.number == "2.3":
            vocab = {i: bytes([i]) for i in range(256)}
            s = Scored(e, "failed", 0, explain_vocab(vocab | {256: b"ab"}, vocab | {256: b"ba"}), "", 1.5)
            s.cause = {**TIE_BREAK, "summary": i18n._(TIE_BREAK["summary"])}
        if e.number in ("2.4", "2.5"):
            s = Scored(e, "failed", 0, "", "", 1.0, cause={**TIE_BREAK, "summary": "x"})
        if e.number in ("3.1", "3.2"):
            s = Scored(
                e, "not implemented", 0, i18n._("Not implemented yet: {what}").format(what="encode"), "", 0.1
            )
        if e.number == "E.1":
            s.figures = speed.figures("training", 0.92, Budget(1.37, "6 x"))
        if e.number == "E.3":
            s.figures = speed.memory_figures("streaming memory", 2_000_000, 12_000_000)
        out.append(s)
    return charge(out)


@pytest.mark.parametrize("width", [80, 100])
def test_the_chinese_report_fits_the_width(width):
    with i18n.speaking("zh"):
        scored = _chinese_scored()
        text = report.terminal(scored, note="报告：results/results.json、results/junit.xml", width=width)
    too_wide = [line for line in text.splitlines() if textwidth.width(line) > width]
    assert too_wide == []
    numbers = {e.number for e in FULL_RUBRIC}
    rows = [line for line in text.splitlines() if line.split(" ", 1)[0] in numbers]
    assert len(rows) == len(FULL_RUBRIC) and max(textwidth.width(r) for r in rows) == width
    table = text.split("\n\n")[0].splitlines()
    assert table[0].split() == ["#", "测试", "得分", "状态", "用时"]
    names = []  # each row's name, its lines in the name column put together (spaces aside)
    for line in table[2:]:
        if line.split(" ", 1)[0] in numbers:
            names.append(line[7:].split("  ")[0])
        else:
            names[-1] += line
    assert [n.replace(" ", "") for n in names] == [s.entry.name_zh.replace(" ", "") for s in scored]
    assert LONG_NAME not in text and all(c in text for c in LONG_NAME)  # wrapped in its column, never cut
    assert "--- 测试 3.1-3.2" not in text and "--- 尚未实现：encode: 测试 3.1-3.2" in text
    assert "与 2.3 同一原因（`train_bpe` 中频次相同时的决胜规则不同）" in text.replace("\n", "")
    assert "训练：预算的 0.67 倍" in text and "流式编码内存：上限的 0.17 倍" in text


def test_the_chinese_report_quotes_the_data_unchanged():
    with i18n.speaking("zh"):
        text = report.terminal(_chinese_scored(), width=80)
    assert "编号 256：应为 b'ab'，实际为 b'ba'" in text  # ids and bytes as Python writes them


def test_results_json_records_its_language():
    scored = [Scored(FULL_RUBRIC[0], "failed", 0, "x", "", 0.1)]
    with i18n.speaking("zh"):
        zh = report.results_json(scored, execution_time=1, isolation="uid")
    en = report.results_json(scored, execution_time=1, isolation="uid")
    assert (zh["extra_data"]["language"], en["extra_data"]["language"]) == ("zh", "en")
    assert zh["output"].startswith("得分：0 / 3。") and en["output"].startswith("Score: 0 / 3.")
    assert zh["tests"][0]["status"] == en["tests"][0]["status"] == "failed"  # statuses are data


# --- wrapping by columns -----------------------------------------------------------------------

OPTIONS = {"break_long_words": False, "break_on_hyphens": False, "drop_whitespace": False}


@given(st.text(alphabet="ab cd-efg\t.,()_", max_size=200), st.integers(10, 90))
def test_ascii_text_wraps_exactly_as_textwrap_does(text, width):
    assert textwidth.wrap(text, width, **OPTIONS) == textwrap.wrap(text, width, **OPTIONS)


@given(st.text(alphabet="词元表合并规则，。（）：ab x", max_size=200), st.integers(10, 90))
def test_chinese_text_wraps_within_the_columns(text, width):
    # A closing mark right after a space may start a line: the space is a break, as in textwrap.
    assume(not any(a.isspace() and b in textwidth.NO_LINE_START for a, b in itertools.pairwise(text)))
    lines = textwidth.wrap(
        text, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )
    # As textwrap with break_long_words=False: a line is wider only when it holds one piece that
    # cannot be broken (a long word, or wide characters glued to their closing punctuation).
    unbreakable = [
        line
        for line in lines
        if len(textwidth.wrap(line.strip(), 1, break_long_words=False, break_on_hyphens=False)) == 1
    ]
    assert all(textwidth.width(line) <= width or line in unbreakable for line in lines)
    assert "".join(line.lstrip() for line in lines).replace(" ", "") == text.replace(" ", "").lstrip()
    assert not any(line.lstrip()[:1] in textwidth.NO_LINE_START for line in lines[1:])


def test_a_cjk_character_takes_two_columns():
    assert textwidth.width("词元 ab") == 7 and textwidth.ljust("词元", 6) == "词元  "
