"""How GPT2_PATTERN cuts text, and why special tokens must be matched longest first."""

from __future__ import annotations

import re

import regex

from ._common import heading, show, table

TITLE = "pre-tokenization alternative by alternative, and overlapping special tokens (Part 2)"
NEEDS = "pretokenize and split_on_special_tokens (Part 2)"
DEMO = "Hello, world!  It's 42 cats\n\nthe end 😀 "
SPECIALS = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]  # shortest first, on purpose
SPECIAL_DEMO = "The end.<|endoftext|><|endoftext|>Once upon a time"

# GPT2_PATTERN's alternatives, named, in the pattern's own order.
ALTERNATIVES = [
    ("contraction", r"'(?:[sdmt]|ll|ve|re)"),
    ("letters", r" ?\p{L}+"),
    ("digits", r" ?\p{N}+"),
    ("symbols", r" ?[^\s\p{L}\p{N}]+"),
    ("whitespace not followed by a non-space", r"\s+(?!\S)"),
    ("last whitespace before a non-space", r"\s+"),
]


def which_alternatives(text: str) -> list[tuple[str, str]]:
    """(piece, name of the alternative that matched it) for GPT2_PATTERN on `text`."""
    named = "|".join(f"(?P<a{i}>{pattern})" for i, (_, pattern) in enumerate(ALTERNATIVES))
    return [(m.group(), ALTERNATIVES[int(m.lastgroup[1:])][0]) for m in regex.finditer(named, text)]


def shortest_first(text: str, specials: list[str]) -> list[str]:
    """The classic mistake: the regex tries the specials in the order given, shortest first."""
    pattern = "(" + "|".join(re.escape(s) for s in sorted(specials, key=len)) + ")"
    return [piece for piece in re.split(pattern, text) if piece]


def run(bpe) -> None:
    heading("Lab pretokenize: how GPT2_PATTERN cuts text")
    expected = which_alternatives(DEMO)
    pieces = bpe.pretokenize(DEMO)
    print(f"text = {DEMO!r}     ('·' is a space, '⏎' a newline)\n")
    rows = []
    for i in range(max(len(pieces), len(expected))):
        mine = repr(pieces[i]) if i < len(pieces) else "(missing)"
        piece, name = expected[i] if i < len(expected) else ("", "(none: extra piece)")
        ok = "" if i < len(pieces) and pieces[i] == piece else "  <- differs from GPT-2's"
        rows.append([i, mine, show(piece), name + ok])
    print(table(["#", "your pretokenize", "shown", "alternative that matched"], rows, right={0}))
    print(
        "\nNotice: '  It' became ' ' + ' It'. The alternative \\s+(?!\\S) takes whitespace but "
        "must not\nbe followed by a non-space, so it stops one space early and leaves that "
        "space to the\nword: ' It' is the same token as in the middle of a sentence."
    )

    print()
    heading("Special tokens that overlap")
    print(f"specials = {SPECIALS}\ntext     = {SPECIAL_DEMO!r}\n")
    rows = [
        ["your split_on_special_tokens", bpe.split_on_special_tokens(SPECIAL_DEMO, SPECIALS)],
        ["shortest first (wrong)", shortest_first(SPECIAL_DEMO, SPECIALS)],
    ]
    print(table(["matching", "pieces"], rows))
    print(
        "\nNotice: a regex alternation takes the FIRST alternative that matches, not the "
        "longest.\nSorting the special tokens longest first makes the double token one piece "
        "(one id)."
    )
