"""GPT-2 pre-tokenization at stdlib ``re`` speed, exact on the Basic Multilingual Plane.

``regex`` is needed for ``\\p{L}`` and ``\\p{N}``, and splits about half as
fast as stdlib ``re``. But spelled out as explicit character classes, the
same pattern compiles in ``re`` too. The classes are read from ``regex``
itself, one test over every character below U+10000 (~25 ms, on first
use), so they agree with it on every such character whatever Unicode
version either module knows. (stdlib ``\\s`` differs, for one: it also
matches ``\\x1c``-``\\x1f``.)

Characters above U+FFFF would take a 1.1-million-character table. Most of
them are emoji, which the pattern's "anything else" class takes as it
should; when ``regex`` finds one that is a letter, a digit or a space
(𝐀, rare CJK), ``regex`` itself splits the stretches of text around those.
A stretch is only cut before a space that follows a visible ASCII
character (``"a| b"``, ``".| "``). No pre-token spans such a point: runs of
letters, digits or punctuation stop at the space, a run of whitespace
cannot include the character before it, and the optional leading space
only starts a match. Nor does any match before the cut look past it, so
splitting the two sides apart gives exactly the pre-tokens of the whole.
"""

import re

import regex

_BMP_RE: re.Pattern | None = None  # built on first use
# Letters, digits and spaces above U+FFFF: the characters the table leaves out.
_ASTRAL_WORD = regex.compile(r"[[\p{L}\p{N}\s]&&[\U00010000-\U0010ffff]]+", regex.V1)


def findall(text: str, full: regex.Pattern) -> list[str]:
    """``full.findall(text)``, where ``full`` is GPT-2's pattern compiled by ``regex``."""
    bmp = _BMP_RE or _build()
    if text.isascii() or len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text):
        return bmp.findall(text)  # no character above U+FFFF
    if not _ASTRAL_WORD.search(text):
        return bmp.findall(text)  # only emoji and the like: "anything else" to both patterns
    out: list[str] = []
    start = end = 0  # text[start:end] goes to ``full``; everything before ``start`` is split
    for run in _ASTRAL_WORD.finditer(text):
        if run.start() >= end:  # past the current stretch: flush it, and the text up to the run
            if end > start:
                out += full.findall(text[start:end])
            start = _cut_before(text, run.start(), end)
            out += bmp.findall(text[end:start])
        end = max(end, _cut_after(text, run.end()))
    out += full.findall(text[start:end])
    out += bmp.findall(text[end:])
    return out


def _build() -> re.Pattern:
    global _BMP_RE
    every = "".join(map(chr, range(0x10000)))
    letters, digits, spaces = (_char_class(regex.findall(p, every)) for p in (r"\p{L}", r"\p{N}", r"\s"))
    # GPT-2's pattern with its letters alternative first (no other one can
    # match where it does, and it matches most often), and possessive runs
    # (nothing follows them to backtrack for): the same matches, found faster.
    _BMP_RE = re.compile(
        rf""" ?[{letters}]++|'(?:[sdmt]|ll|ve|re)| ?[{digits}]++| ?[^{spaces}{letters}{digits}]++"""
        rf"""|[{spaces}]+(?![^{spaces}])|[{spaces}]+"""
    )
    return _BMP_RE


def _char_class(chars: list[str]) -> str:
    """The body of a ``[...]`` matching exactly ``chars``, as ranges."""
    spans: list[list[int]] = []
    for c in map(ord, chars):
        if spans and spans[-1][1] == c - 1:
            spans[-1][1] = c
        else:
            spans.append([c, c])
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in spans)


def _is_cut(text: str, p: int) -> bool:
    return p > 0 and text[p] == " " and "!" <= text[p - 1] <= "~"


def _cut_before(text: str, i: int, lo: int) -> int:
    """The last cut in (lo, i], or ``lo``."""
    while (p := text.rfind(" ", lo + 1, i + 1)) > lo:
        if _is_cut(text, p):
            return p
        i = p - 1
    return lo


def _cut_after(text: str, i: int) -> int:
    """The first cut at or after ``i``, or the end of the text."""
    while (p := text.find(" ", i)) >= 0:
        if _is_cut(text, p):
            return p
        i = p + 1
    return len(text)
