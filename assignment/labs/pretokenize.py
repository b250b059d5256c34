"""How GPT2_PATTERN cuts text, and why special tokens must be matched longest first."""

from __future__ import annotations

import re

import regex

from ._common import heading, show, table

DEMO = "Hello, world!  It's 42 cats\n\nthe end 😀 "
SPECIALS = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]  # shortest first, on purpose
SPECIAL_DEMO = "The end.<|endoftext|><|endoftext|>Once upon a time"

# GPT2_PATTERN's alternatives, named (in English; WORDS names them in each language), in the
# pattern's own order.
ALTERNATIVES = [
    ("contraction", r"'(?:[sdmt]|ll|ve|re)"),
    ("letters", r" ?\p{L}+"),
    ("digits", r" ?\p{N}+"),
    ("symbols", r" ?[^\s\p{L}\p{N}]+"),
    ("whitespace not followed by a non-space", r"\s+(?!\S)"),
    ("last whitespace before a non-space", r"\s+"),
]
WORDS = {
    "en": {
        "title": "pre-tokenization alternative by alternative, and overlapping special tokens (Part 2)",
        "needs": "pretokenize and split_on_special_tokens (Part 2)",
        "alternatives": [name for name, _ in ALTERNATIVES],
        "heading": "Lab pretokenize: how GPT2_PATTERN cuts text",
        "text": "text = {text!r}     ('·' is a space, '⏎' a newline)\n",
        "missing": "(missing)",
        "extra": "(none: extra piece)",
        "differs": "  <- differs from GPT-2's",
        "columns": ["#", "your pretokenize", "shown", "alternative that matched"],
        "notice": "\nNotice: '  It' became ' ' + ' It'. The alternative \\s+(?!\\S) takes whitespace but "
        "must not\nbe followed by a non-space, so it stops one space early and leaves that "
        "space to the\nword: ' It' is the same token as in the middle of a sentence.",
        "special_heading": "Special tokens that overlap",
        "special_demo": "specials = {specials}\ntext     = {text!r}\n",
        "yours": "your split_on_special_tokens",
        "shortest_first": "shortest first (wrong)",
        "special_columns": ["matching", "pieces"],
        "special_notice": "\nNotice: a regex alternation takes the FIRST alternative that matches, not the "
        "longest.\nSorting the special tokens longest first makes the double token one piece "
        "(one id).",
    },
    "zh": {
        "title": "一个分支一个分支地看预分词，以及相互重叠的特殊词元（第 2 部分）",
        "needs": "pretokenize 和 split_on_special_tokens（第 2 部分）",
        "alternatives": [
            "缩写形式",
            "字母",
            "数字",
            "其他符号",
            "后面不紧跟非空白字符的空白",
            "非空白字符前的最后一个空白",
        ],
        "heading": "实验 pretokenize：GPT2_PATTERN 怎样切分文本",
        "text": "text = {text!r}     （'·' 是空格，'⏎' 是换行）\n",
        "missing": "（缺失）",
        "extra": "（无：多出来的片段）",
        "differs": "  <- 与 GPT-2 的不同",
        "columns": ["#", "你的 pretokenize", "显示为", "匹配的分支"],
        "notice": "\n注意：'  It' 变成了 ' ' + ' It'。分支 \\s+(?!\\S) 取走空白，但后面不能紧跟非空白字符，\n"
        "所以它提前一个空格停下，把那个空格留给单词：' It' 与它在句子中间时是同一个词元。",
        "special_heading": "相互重叠的特殊词元",
        "special_demo": "specials = {specials}\ntext     = {text!r}\n",
        "yours": "你的 split_on_special_tokens",
        "shortest_first": "短的优先（错误）",
        "special_columns": ["匹配方式", "片段"],
        "special_notice": "\n注意：正则表达式的分支选的是第一个能匹配的分支，而不是最长的那个。\n"
        "把特殊词元按长度排序、长的在前，双重词元才会成为一个片段（一个编号）。",
    },
}


def which_alternatives(text: str, lang: str = "en") -> list[tuple[str, str]]:
    """(piece, name of the alternative that matched it) for GPT2_PATTERN on `text`."""
    named = "|".join(f"(?P<a{i}>{pattern})" for i, (_, pattern) in enumerate(ALTERNATIVES))
    names = WORDS[lang]["alternatives"]
    return [(m.group(), names[int(m.lastgroup[1:])]) for m in regex.finditer(named, text)]


def shortest_first(text: str, specials: list[str]) -> list[str]:
    """The classic mistake: the regex tries the specials in the order given, shortest first."""
    pattern = "(" + "|".join(re.escape(s) for s in sorted(specials, key=len)) + ")"
    return [piece for piece in re.split(pattern, text) if piece]


def run(bpe, lang: str = "en") -> None:
    words = WORDS[lang]
    heading(words["heading"])
    expected = which_alternatives(DEMO, lang)
    pieces = bpe.pretokenize(DEMO)
    print(words["text"].format(text=DEMO))
    rows = []
    for i in range(max(len(pieces), len(expected))):
        mine = repr(pieces[i]) if i < len(pieces) else words["missing"]
        piece, name = expected[i] if i < len(expected) else ("", words["extra"])
        ok = "" if i < len(pieces) and pieces[i] == piece else words["differs"]
        rows.append([i, mine, show(piece), name + ok])
    print(table(words["columns"], rows, right={0}))
    print(words["notice"])

    print()
    heading(words["special_heading"])
    print(words["special_demo"].format(specials=SPECIALS, text=SPECIAL_DEMO))
    rows = [
        [words["yours"], bpe.split_on_special_tokens(SPECIAL_DEMO, SPECIALS)],
        [words["shortest_first"], shortest_first(SPECIAL_DEMO, SPECIALS)],
    ]
    print(table(words["special_columns"], rows))
    print(words["special_notice"])
