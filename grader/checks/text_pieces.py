"""The pieces Part 3's generated texts are built from: one list, read by the property tests
(tests/graded/test_part3.py's TEXTS) and by `make fixtures` (the stored "generated" encode case),
so the texts a test generates and the texts whose ids are stored are built alike."""

from __future__ import annotations

from data.corpus import EOT

PIECES = [
    EOT,
    EOT + EOT,
    "<|",
    "|>",
    "endoftext",
    " the",
    " Lily",
    "小猫",
    "😊",
    "👍🏽",
    "\r\n",
    "\r",
    "  ",
    "\n\n",
    "'s",
    "x²",
    " 123",
    "\u00a0",
    # Runs of one character (overlapping equal-rank pairs: the leftmost merges first), and every
    # character class GPT-2's pattern treats specially.
    "lll",
    "ooooo",
    "乐乐乐",
    "\n\n\n",
    "      ",
    "\t\t\t\t",
    "_",
    "²",
    "½",
    "\x1c\x1d\x1e\x1f",
    "\u2028",
    "𝐀𝐛",
    "𝟙𝟚",
    "'ll",
]
