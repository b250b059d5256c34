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

# What the contract allows and PIECES does not vary, one text each (tests/submissions/CONTRACT_INPUTS.md):
# letter case in contractions (GPT-2's are lowercase only: "'LL" is "'" then "LL") and in look-alikes
# of a special token (one differs only in case, one lacks its first or last characters); marks
# (\p{M}: not letters, so the pattern's "other" class) in Devanagari, Thai, Hebrew and decomposed
# Latin; right-to-left Arabic; emoji joined by U+200D, flags, variation selectors; and each kind of
# whitespace that \s holds. Added once each, not paired like PIECES: each costs one call per test.
VARIED = [
    "'The I'LL DON'T We'Re IT'S you'VE Bob'She",
    "<|ENDOFTEXT|>",
    f"<|EndOfText|>{EOT}endoftext|>",
    f"<|endoftext|{EOT}|endoftext|>",
    "नमस्ते दुनिया",
    "สวัสดีครับ",
    "cafe\u0301 nai\u0308ve e\u0301\u0301",
    "مرحبا بالعالم",
    "שָׁלוֹם",
    "👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈 🇯🇵 ☺\ufe0e ✌🏽",
    "a\x0bb\x0cc\x85d\u2029e\u1680f\u3000g\u00a0h\u2028i\tj\r\n",
]
