"""The labs' command line: listing, unknown names, missing work, and broken submissions.

A student's mistake must end in one clear line (and a non-zero exit), never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys

from handout_support import ROOT, STARTER, run_lab


def test_no_name_lists_every_lab():
    result = subprocess.run(
        [sys.executable, "-m", "assignment.labs"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    for name in ("trace", "unknown", "sweep", "pretokenize", "compression", "throughput", "streaming"):
        assert f"  {name} " in result.stdout


def test_unknown_lab_name():
    result = run_lab("tracee")
    assert result.returncode == 2
    assert "no lab called 'tracee'" in result.stderr and "Traceback" not in result.stderr


def test_the_starter_says_what_to_implement_first():
    result = run_lab("trace", STARTER)
    assert result.returncode == 1
    assert "`CharBPE.train` (char_bpe.py), which still raises NotImplementedError" in result.stderr
    assert "make lab NAME=trace" in result.stderr and "Traceback" not in result.stderr


def test_folder_without_bpe(tmp_path):
    result = run_lab("trace", tmp_path)
    assert result.returncode == 2
    assert str(tmp_path) in result.stderr and "no bpe/__init__.py" in result.stderr


def _package(tmp_path, source: str):
    (tmp_path / "bpe").mkdir()
    (tmp_path / "bpe" / "__init__.py").write_text(source, encoding="utf-8")
    return tmp_path


def test_syntax_error_names_file_and_line(tmp_path):
    result = run_lab("trace", _package(tmp_path, "x = 1\ndef broken(:\n"))
    assert result.returncode == 2
    assert "__init__.py, line 2" in result.stderr and "Traceback" not in result.stderr


def test_an_exception_in_student_code_is_one_line_with_its_place(tmp_path):
    source = (
        "class CharBPE:\n    @classmethod\n    def train(cls, text, num_merges):\n"
        "        raise ValueError('boom')\n"
    )
    result = run_lab("trace", _package(tmp_path, source))
    assert result.returncode == 1
    assert "ValueError: boom (in train, bpe/__init__.py line 4)" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_language_follows_the_locale_unless_lang_is_given():
    from assignment.labs._common import language

    assert language({}) == "en" and language({"LANG": "C.UTF-8"}) == "en"
    assert language({"LANG": "zh_CN.UTF-8"}) == "zh" and language({"LANG": "zh"}) == "zh"
    assert language({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"  # LC_ALL first, as gettext
    assert language({"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}) == "zh"
    listing = subprocess.run(
        [sys.executable, "-m", "assignment.labs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "LANG": "zh_CN.UTF-8"},
    )
    assert listing.returncode == 0 and "实验：" in listing.stdout and "  trace " in listing.stdout
    assert "Run an experiment" not in listing.stdout


def test_a_lab_reads_the_environment_as_the_grader_does():
    """gettext's order: LANGUAGE before LC_ALL, LC_MESSAGES and LANG, for a lab as for a grade."""
    from assignment.labs._common import language
    from grader import i18n

    env = {"LANGUAGE": "zh", "LANG": "en_US.UTF-8"}
    assert language(env) == i18n.from_environment(env) == "zh"
    clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    result = subprocess.run(
        [sys.executable, "-m", "assignment.labs", "trace", "--submission", str(STARTER)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=clean | env,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "但它还在引发 NotImplementedError" in result.stderr
    assert "which still raises" not in result.stderr


def test_chinese_messages_name_the_same_things():
    result = run_lab("tracee", STARTER, lang_env="zh_CN.UTF-8")
    assert result.returncode == 2 and "没有叫 'tracee' 的实验" in result.stderr
    result = run_lab("trace", STARTER, "--lang", "zh")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "`CharBPE.train` (char_bpe.py)，但它还在引发 NotImplementedError" in result.stderr
    assert "make lab NAME=trace" in result.stderr
    result = run_lab("trace", STARTER, "--lang", "en", lang_env="zh_CN.UTF-8")  # --lang wins
    assert "which still raises NotImplementedError" in result.stderr


def test_a_chinese_error_in_student_code_is_one_line_with_its_place(tmp_path):
    source = "class CharBPE:\n    @classmethod\n    def train(cls, text, num_merges):\n        raise ValueError('boom')\n"
    result = run_lab("trace", _package(tmp_path, source), "--lang", "zh")
    assert result.returncode == 1
    assert "你的代码引发了 ValueError: boom（在 train 中，bpe/__init__.py 第 4 行）" in result.stderr


def test_an_unknown_language_is_refused_in_one_line():
    result = run_lab("trace", STARTER, "--lang", "fr")
    assert (
        result.returncode == 2
        and "invalid choice: 'fr'" in result.stderr
        and "Traceback" not in result.stderr
    )
