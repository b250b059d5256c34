"""tests/submissions/CONTRACT_INPUTS.md, the table from the contract's clauses to the graded inputs,
names every rubric test, and only tests and catalogue rows that exist."""

from __future__ import annotations

import fnmatch
import re

import catalogue

from grader import rubric
from grader.bpe_facts.text_pieces import VARIED
from grader.paths import DEFAULT_RUBRIC, KIT_ROOT

TABLE = KIT_ROOT / "tests" / "submissions" / "CONTRACT_INPUTS.md"
NUMBER = re.compile(r"^(?:\d|E)\.\d+$")
RANGE = re.compile(r"^(\d)\.(\d+)-(\d)\.(\d+)$")


def _rows(heading: str) -> list[list[str]]:
    """The cells of the first table after `heading` ("": the file's first table), header row left out."""
    text = TABLE.read_text(encoding="utf-8")
    if heading:
        text = text.split(heading, 1)[1]
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("| ---"):
            continue
        if line.startswith("| "):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif rows:
            break
    assert len(rows) > 1, heading
    return rows[1:]


def _numbers(cell: str) -> set[str]:
    out = set()
    for word in (w.strip() for w in cell.split(",")):
        span = RANGE.match(word)
        if span:
            part, low, _part, high = span.groups()
            out |= {f"{part}.{n}" for n in range(int(low), int(high) + 1)}
        elif word and word != "-":
            assert NUMBER.match(word), f"{word!r} is not a rubric number"
            out.add(word)
    return out


def test_every_rubric_test_is_in_the_table_and_every_number_is_a_rubric_test():
    numbers = {e.number for e in rubric.load(DEFAULT_RUBRIC)}
    named = set().union(*(_numbers(row[2]) for row in _rows("")))
    assert named - numbers == set(), "numbers that are no rubric test"
    assert numbers - named == set(), "rubric tests the table does not name"


def test_every_row_the_table_names_is_in_the_catalogue():
    names = [e.name for e in catalogue.load()]
    cells = [row[4] for row in _rows("")] + [row[0] for row in _rows("## Rows the varied inputs kill")]
    for cell in cells:
        for word in re.sub(r"\(new\)", "", cell).split(","):
            word = word.strip()
            if word and word != "-":
                assert fnmatch.filter(names, word), f"{word!r} is no catalogue row"


def test_the_rows_the_varied_inputs_kill_are_mutants_that_fail_the_tests_named():
    entries = {e.name: e for e in catalogue.load()}
    ids = {e.number: e.id for e in rubric.load(DEFAULT_RUBRIC)}
    for row in _rows("## Rows the varied inputs kill"):
        entry = entries[row[0]]
        killed = set(re.findall(r"(?<![\w.])(\d\.\d+|E\.\d)(?![\w.])", row[1]))
        assert killed, row[0]
        for number in killed:
            assert entry.must_fail(ids[number]), f"{row[0]} should fail {number} in catalogue.toml"


def test_varied_texts_vary_case_marks_scripts_and_whitespace():
    text = "".join(VARIED)
    assert any(c.isupper() for c in text) and "<|ENDOFTEXT|>" in text
    assert "\u0301" in text and "\u200d" in text and "\ufe0f" in text
    for space in " \t\n\r\x0b\x0c\x85\u00a0\u1680\u2028\u2029\u3000":
        assert space in text, repr(space)
