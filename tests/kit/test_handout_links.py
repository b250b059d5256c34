"""Links between the handout's pages, and the paths it tells students about, exist."""

from __future__ import annotations

import re

from handout_support import HANDOUT, ROOT

LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_relative_links_point_at_files_of_the_kit():
    checked = 0
    for path in HANDOUT + [ROOT / "INSTRUCTORS.md"]:
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not ours to check
            assert (path.parent / target).exists(), f"{path.name}: broken link {target}"
            checked += 1
    assert checked >= 10


def test_every_part_is_linked_from_the_front_page():
    front = (ROOT / "assignment" / "README.md").read_text(encoding="utf-8")
    for path in HANDOUT:
        if path.name != "README.md":
            assert f"]({path.name})" in front, f"README.md does not link to {path.name}"


def test_starter_files_named_in_the_handout_exist():
    text = "\n".join(p.read_text(encoding="utf-8") for p in HANDOUT)
    named = set(re.findall(r"`bpe/(\w+\.py)`", text))
    assert {"char_bpe.py", "training.py", "tokenizer.py", "pretokenize.py"} <= named
    for name in named:
        if not name.startswith("_"):  # `bpe/_counts.py` is an example of a file students may add
            assert (ROOT / "starter" / "bpe" / name).is_file(), name
