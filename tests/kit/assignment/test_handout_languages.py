"""The Chinese handout says what the English one says: same files, same structure, same examples.

Each file of assignment/ has its twin in assignment/zh/ (and the student README its twin among the
release templates). A twin has the same headings at each level, the same code blocks (comments
aside: they are prose, and translated), the same number of table rows, the same generated blocks,
links to the same pages, and every inline code span and number of the English (so every rule that
names a function, an error, a value or a limit is stated in both). The Chinese uses one word for
each term, as its glossary says.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest
from handout_support import HANDOUTS, ROOT

from assignment import build

TEMPLATES = ROOT / "grader" / "release" / "templates"
GLOSSARY = build.LANGUAGES["zh"] / "glossary.md"
ONLY_IN_ZH = {GLOSSARY.name}
PAIRS = [(path, build.translated(path, "zh")) for path in HANDOUTS["en"]] + [
    (TEMPLATES / "student_README.md", TEMPLATES / "student_README.zh.md")
]

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^(#{1,6}) ", re.MULTILINE)
LINK = re.compile(r"\]\(([^)#\s]+)")
SPAN = re.compile(r"`([^`]+)`")  # inline code may wrap onto the next line
NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d|(?<![\w.])\d(?![\w])")
MARKER = re.compile(r"<!-- [\w-]+:(?:begin|end) -->")


def _without_comments(lang: str, code: str) -> list:
    """A code block as its tokens without comments (Python), or its lines without `# ...`."""
    if lang == "python":
        tokens = tokenize.generate_tokens(io.StringIO(code).readline)
        return [(t.type, t.string) for t in tokens if t.type not in (tokenize.COMMENT, tokenize.NL)]
    return [re.sub(r"(^|\s+)#.*$", "", line) for line in code.splitlines()]


def _prose(text: str) -> str:
    return FENCE.sub("", text)


def structure(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    prose = _prose(text)
    return {
        "headings per level": [len([h for h in HEADING.findall(prose) if len(h) == n]) for n in range(1, 7)],
        "code blocks": [(lang, _without_comments(lang, code)) for lang, code in FENCE.findall(text)],
        "table rows": len(re.findall(r"^\|", prose, re.MULTILINE)),
        "generated blocks": MARKER.findall(text),
    }


def _spans(prose: str) -> set[str]:
    return {" ".join(span.split()) for span in SPAN.findall(prose)}


def _twin_link(zh: Path, en: Path) -> str:
    return Path("..", *([".."] if zh.parent != build.LANGUAGES["zh"] else []), en.name).as_posix()


def test_every_file_of_the_handout_has_its_chinese_twin_and_no_more():
    english = {p.name for p in HANDOUTS["en"]}
    chinese = {p.name for p in HANDOUTS["zh"]}
    assert chinese - ONLY_IN_ZH == english


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=[p[0].name for p in PAIRS])
def test_twins_have_the_same_structure(en, zh):
    assert structure(zh) == structure(en), f"{zh.relative_to(ROOT)} differs from {en.relative_to(ROOT)}"


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=[p[0].name for p in PAIRS])
def test_the_chinese_keeps_every_code_span_and_number_of_the_english(en, zh):
    en_prose, zh_prose = _prose(en.read_text(encoding="utf-8")), _prose(zh.read_text(encoding="utf-8"))
    missing = _spans(en_prose) - _spans(zh_prose)
    assert not missing, f"{zh.relative_to(ROOT)} lacks {sorted(missing)}"
    numbers = set(NUMBER.findall(SPAN.sub("", en_prose))) - set(NUMBER.findall(SPAN.sub("", zh_prose)))
    assert not numbers, f"{zh.relative_to(ROOT)} lacks the numbers {sorted(numbers)}"


@pytest.mark.parametrize(("en", "zh"), PAIRS[:-1], ids=[p[0].name for p in PAIRS[:-1]])
def test_twins_link_to_the_same_pages_and_the_chinese_to_its_english_twin(en, zh):
    twin = _twin_link(zh, en)
    zh_links = set(LINK.findall(zh.read_text(encoding="utf-8")))
    assert twin in zh_links, f"{zh.relative_to(ROOT)} does not link to its English twin {twin}"
    assert zh_links - {twin} - ONLY_IN_ZH == set(LINK.findall(en.read_text(encoding="utf-8")))


def test_a_missing_example_or_rule_would_be_caught(tmp_path):
    """The comparison sees a dropped code block, a dropped table row and a changed example."""
    en = HANDOUTS["en"][0]
    text = build.translated(en, "zh").read_text(encoding="utf-8")
    block = FENCE.search(text)
    for broken in (
        text[: block.start()] + text[block.end() :],
        text.replace("\n| ", "\n", 1),
        text[: block.start()] + block.group().replace("make", "nake", 1) + text[block.end() :],
    ):
        (tmp_path / "zh.md").write_text(broken, encoding="utf-8")
        assert structure(tmp_path / "zh.md") != structure(en)


def test_comments_in_examples_may_be_translated_but_code_may_not():
    code = "assert f(1) == 2  # the input\n"
    assert _without_comments("python", code) == _without_comments("python", code.replace("the input", "输入"))
    assert _without_comments("python", code) != _without_comments("python", code.replace("2", "3"))
    assert _without_comments("sh", "make grade   # grade it") == _without_comments("sh", "make grade  # 评分")


def glossary_avoided() -> dict[str, str]:
    """Words the glossary says not to use -> the English term they would translate."""
    avoided = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("英文", "---"):
            avoided |= {word: cells[0] for word in cells[3].split("、") if word}
    return avoided


def test_the_glossary_lists_the_courses_terms():
    text = GLOSSARY.read_text(encoding="utf-8")
    for term in (
        "| token | 词元 |",
        "| vocabulary, vocab | 词表 |",
        "| special token | 特殊词元 |",
        "| id | 编号 |",
    ):
        assert term in text
    assert len(glossary_avoided()) >= 5


@pytest.mark.parametrize("path", [*HANDOUTS["zh"], TEMPLATES / "student_README.zh.md"], ids=lambda p: p.name)
def test_the_chinese_uses_the_glossarys_words(path):
    if path == GLOSSARY:
        return
    text = path.read_text(encoding="utf-8")
    used = {word: term for word, term in glossary_avoided().items() if word in text}
    assert not used, f"{path.relative_to(ROOT)}: the glossary says {used}"
