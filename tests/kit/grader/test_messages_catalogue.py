"""Every message the grader shows exists in every language: the catalogue (grader/locale/) is
complete, current and compiled, and no student-facing message is left out of it.

A message is English in the code (its gettext id) and Chinese in grader/locale/zh_CN/LC_MESSAGES/
grader.po. These tests fail when a message exists in one language only: a new `_()` without a
translation, a translation whose message is gone, a fuzzy one, placeholders that differ, a .mo
older than its .po, or a feedback message written without `_()` at all.
"""

from __future__ import annotations

import ast
import io
import json
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

babel_pofile = pytest.importorskip("babel.messages.pofile")
from babel.messages.mofile import write_mo  # noqa: E402

from grader import i18n, rubric  # noqa: E402
from grader.paths import KIT_ROOT  # noqa: E402

LOCALE = KIT_ROOT / "grader/locale"
PO = LOCALE / "zh_CN/LC_MESSAGES/grader.po"
MO = LOCALE / "zh_CN/LC_MESSAGES/grader.mo"
# Words a first-year reader would stumble on, where the course's terms (GLOSSARY) are meant.
NOT_THE_COURSE_TERMS = {"令牌": "词元", "词汇表": "词表", "标记化": "分词", "字节对编码器": "分词器"}


def _catalogue():
    with PO.open("rb") as f:
        return babel_pofile.read_po(f)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict:
    """The messages in the code and the templates now, as `make locale` extracts them."""
    pot = tmp_path_factory.mktemp("locale") / "grader.pot"
    babel = Path(sys.executable).with_name("pybabel")
    r = subprocess.run(
        [str(babel), "-q", "extract", "-F", str(LOCALE / "babel.cfg"), "--no-wrap", "-o", str(pot), "."],
        cwd=KIT_ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    with pot.open("rb") as f:
        return {m.id: m for m in babel_pofile.read_po(f) if m.id}


def test_every_message_in_the_code_is_translated(extracted):
    po = {m.id: m for m in _catalogue() if m.id}
    untranslated = [k for k in extracted if k not in po or not _strings(po[k])]
    assert untranslated == [], (
        f"run `make locale` and translate in {PO.relative_to(KIT_ROOT)}: {untranslated}"
    )
    fuzzy = [k for k, m in po.items() if m.fuzzy]
    assert fuzzy == [], f"fuzzy translations (check them, then remove the flag): {fuzzy}"
    stale = [k for k in po if k not in extracted]
    assert stale == [], f"translations of messages the code no longer has (run `make locale`): {stale}"


def _strings(m) -> list[str]:
    return [s for s in ((m.string,) if isinstance(m.string, str) else m.string) if s]


def _placeholders(text: str) -> list[str]:
    """`{name:spec}` fields (str.format) and `%(name)s` (the templates'), as they are written."""
    fields = [f"{{{name}:{spec}}}" for _, name, spec, _ in string.Formatter().parse(text) if name is not None]
    return sorted(fields + re.findall(r"%\(\w+\)[sd]", text))


def test_placeholders_are_the_same_in_both_languages():
    wrong = []
    for m in _catalogue():
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        for text in _strings(m):
            if _placeholders(text) != _placeholders(ids[-1]):
                wrong.append((ids[0], text))
    assert wrong == []


def test_the_translations_use_the_courses_terms():
    found = [
        (m.id, bad, good)
        for m in _catalogue()
        for s in _strings(m)
        for bad, good in NOT_THE_COURSE_TERMS.items()
        if bad in s
    ]
    assert found == []


def test_the_committed_mo_is_the_po_compiled():
    compiled = io.BytesIO()
    write_mo(compiled, _catalogue(), use_fuzzy=False)
    assert MO.read_bytes() == compiled.getvalue(), "grader.mo is older than grader.po: run `make locale`"


def test_each_training_case_is_described_in_the_catalogue():
    """A case's `about` comes from its fixture (data) and is shown translated (training_check)."""
    ids = {m.id for m in _catalogue() if m.id}
    abouts = {
        json.loads(p.read_text(encoding="utf-8"))["about"]
        for p in (KIT_ROOT / "data/fixtures").glob("*/train/*/case.json")
    }
    assert abouts and sorted(abouts - ids) == []


def test_every_rubric_test_has_a_chinese_name():
    """A Chinese report names each test in Chinese (the rubric's name_zh); without it the report
    falls back to the English name, which only this test notices."""
    for path in (KIT_ROOT / "grader/rubric.toml", KIT_ROOT / "grader/rubric_cs336.toml"):
        missing = [e.number for e in rubric.load(path) if not e.name_zh]
        assert missing == [], f"{path.name}: no name_zh for {missing}"


def test_cs336_notes_and_reasons_are_in_chinese():
    """A Chinese cs336 grade shows the contract's notes and why a test is left out in Chinese
    (rubric_cs336.toml's notes_zh and why_zh), not the English beside them."""
    from grader.cs336 import contract

    english_words = re.compile(r"[A-Za-z]+ [A-Za-z]+ [A-Za-z]+")
    assert all(english_words.search(n) for n in contract.notes())  # what the check finds
    with i18n.speaking("zh"):
        said = [*contract.notes(), *(s.feedback for s in contract.not_in_contract())]
    assert [t for t in said if english_words.search(t)] == []


# --- no message left out of the catalogue ------------------------------------------------------

# Where the messages a student reads are written.
STUDENT_FACING = [
    *sorted((KIT_ROOT / "tests/graded").glob("test_*.py")),
    *sorted((KIT_ROOT / "grader/checks").glob("*.py")),
    *sorted((KIT_ROOT / "grader/suite").glob("*.py")),
    *sorted((KIT_ROOT / "grader/cs336").glob("*.py")),
    *(
        KIT_ROOT / "grader" / name
        for name in ("report.py", "errors.py", "scoring.py", "intake.py", "gradescope.py", "packing.py")
    ),
    *(
        KIT_ROOT / "grader/sandbox" / name
        for name in (
            "proxy.py",
            "session.py",
            "remote_errors.py",
            "process.py",
            "call_words.py",
            "box.py",
            "isolation.py",
        )
    ),
]
# Exceptions whose words reach the student (feedback, a refused submission, a stopped call).
SHOWN = {
    "AssertionError",
    "Diagnosed",
    "SubmissionError",
    "PackingError",
    "BadReply",
    "WorkerCrashed",
    "CallTimeout",
    "CallStalled",
    "CpuLimitExceeded",
    "EndlessIterator",
}


def _plain_text(node) -> bool:
    """A literal sentence written into the code (an f-string, or a str with words in it)."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and re.search(r"[A-Za-z]{3}", v.value) for v in node.values)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(re.search(r"[A-Za-z]{3} [A-Za-z]", node.value))
    if isinstance(node, ast.BinOp):
        return _plain_text(node.left) or _plain_text(node.right)
    return False


def _unmarked(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        message = None
        if isinstance(node, ast.Assert) and node.msg is not None:
            message = node.msg
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in SHOWN:
                message = node.exc.args[0]
        if message is not None and _plain_text(message):
            found.append(f"{path.relative_to(KIT_ROOT)}:{node.lineno}")
    return found


def test_no_feedback_message_is_written_without_the_catalogue():
    unmarked = [where for path in STUDENT_FACING for where in _unmarked(path)]
    assert unmarked == [], "wrap these messages in _() (grader/i18n.py), then `make locale`"


def test_the_check_finds_an_unmarked_message(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from grader.i18n import _\n"
        "def f(x):\n"
        "    assert x, _('marked {x}').format(x=x)\n"
        "    assert x, f'not marked {x}'\n"
        "    raise AssertionError('not marked either')\n"
    )
    assert [w.rsplit(":", 1)[1] for w in _unmarked_at(sample, tmp_path)] == ["4", "5"]


def _unmarked_at(path: Path, root: Path) -> list[str]:
    global KIT_ROOT
    kept, KIT_ROOT = KIT_ROOT, root
    try:
        return _unmarked(path)
    finally:
        KIT_ROOT = kept


def test_english_reads_no_catalogue_and_chinese_reads_it():
    with i18n.speaking("en"):
        assert i18n._("Score: {total} / {maximum}.") == "Score: {total} / {maximum}."
    with i18n.speaking("zh"):
        assert i18n._("Score: {total} / {maximum}.") != "Score: {total} / {maximum}."
        assert i18n.ngettext("{count} byte", "{count} bytes", 5) == i18n.ngettext(
            "{count} byte", "{count} bytes", 1
        )
