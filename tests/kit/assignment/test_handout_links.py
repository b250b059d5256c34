"""Links between the handout's pages, and the paths it tells students about, exist, in every
language of the handout; so do the headings that links point at (`README.md#grading`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from handout_support import ALL_HANDOUTS, HANDOUTS, LANGUAGES, ROOT, label

LINK = re.compile(r"\]\(([^)#\s]+)(?:#([^)]*))?\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.MULTILINE)


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped (letters of any script
    kept, CJK included), spaces to hyphens."""
    text = re.sub(r"`", "", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {anchor(h) for h in HEADING.findall(path.read_text(encoding="utf-8"))}


def test_relative_links_point_at_files_and_headings_of_the_kit():
    checked = 0
    for path in ALL_HANDOUTS + [ROOT / "INSTRUCTORS.md"]:
        for target, fragment in LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not ours to check
            assert (path.parent / target).exists(), f"{path.name}: broken link {target}"
            if fragment and target.endswith(".md"):
                assert fragment in anchors(path.parent / target), (
                    f"{label(path)}: no heading #{fragment} in {target}"
                )
            checked += 1
    assert checked >= 20


def test_the_anchor_rule_is_githubs():
    assert anchor("Grading") == "grading"
    assert anchor("Step 1: special tokens") == "step-1-special-tokens"
    assert anchor("`encode`, `decode`, `state`") == "encode-decode-state"
    assert anchor("评分") == "评分"
    assert anchor("第 1 步：特殊词元") == "第-1-步特殊词元"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_part_is_linked_from_the_front_page(lang):
    front = next(p for p in HANDOUTS[lang] if p.name == "README.md").read_text(encoding="utf-8")
    for path in HANDOUTS[lang]:
        if path.name != "README.md":
            assert f"]({path.name})" in front, f"{label(path)} is not linked from its README.md"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_starter_files_named_in_the_handout_exist(lang):
    text = "\n".join(p.read_text(encoding="utf-8") for p in HANDOUTS[lang])
    named = set(re.findall(r"`bpe/(\w+\.py)`", text))
    assert {"char_bpe.py", "training.py", "tokenizer.py", "pretokenize.py"} <= named
    for name in named:
        if not name.startswith("_"):  # `bpe/_counts.py` is an example of a file students may add
            assert (ROOT / "starter" / "bpe" / name).is_file(), name
