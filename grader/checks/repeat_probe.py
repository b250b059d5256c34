"""Does a trainer go wrong only on words where a token meets itself? Asked of the trainer itself.

The pair counts after a merge are the part of a trainer students most often get subtly wrong, and
nearly always in words where a token meets itself: "aaaa" (merging (a, a) must not count the
overlapping pairs twice), "abab" (after merging (a, b), "ab ab" is a new pair on both sides). Such
a fault changes a few counts, the merges drift from there, and every training test fails; none of
its lists of merges is a tie, a classic mistake or a cut that the grader could replay.

But one fact can be checked: two equal tokens side by side spell the same bytes twice in a row
(a "square": "aa", "abab"), so in a word without one no token ever meets itself, whatever is
merged. So the trainer is asked once more, on the test's own text with each word of letters or
digits that holds a square respelled, in place, with characters all different and of the same
kind and length (`without_repeats`): every word keeps its place, its neighbours and the file its
offsets. When the trainer then learns exactly the contract's merges, the test failed only on
such words: the concern of the test that names repeated pairs (2.3), and one fault. Whitespace,
punctuation, contractions and the first and last words are never respelled, so a fault of a
pattern, of reading or cutting the file, of ties, special tokens or the number of merges shows on
that text too, and is charged as usual.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from grader.bpe_facts.gpt2 import GPT2_PATTERN
from grader.i18n import N_, _

if TYPE_CHECKING:
    from collections.abc import Iterable
    from types import ModuleType

REPEATS = {
    "key": "a token meets itself",
    "where": "train_bpe",
    "summary": N_("train_bpe goes wrong only on words like 'aaaa' or 'abab'"),  # translated when returned
    "one_fault": True,
    "hint": N_(
        "Trained again on this test's text with each word where a token can meet itself respelled "
        "with characters all different (' abab' becomes ' ABCD'), your trainer makes exactly the "
        "right merges: its merges go wrong on words such as 'aaaa' or 'abab' only. Most often that "
        "is the pair counts after a merge, where a token meets itself: merging (a, a) turns "
        "'a a a a' into 'aa aa', and merging (a, b) turns 'a b a b' into 'ab ab', a new pair "
        "(ab, ab). Count every adjacent position ('aaaa' holds (a, a) three times), and after a "
        "merge take each neighbour from the word as it is after the merge."
    ),
}


def repeats_fault(
    oracles: ModuleType,
    text: str,
    specials: list[str],
    vocab_size: int,
    train: Callable[[Path, int], list],
    stops_early: bool,
) -> dict | None:
    """The cause (data) when `train(path, vocab_size)` (the student's trainer, its merges) learns
    the contract's merges on the text with its words where a token can meet itself respelled
    (`without_repeats`); None otherwise, or when that text teaches no merge.

    With fewer repeated pairs, that text may run out of pairs before `vocab_size`: the trainer is
    then asked for just the merges it holds, so that stopping early, which is another test's concern,
    is asked only where the test itself asks it (`stops_early`). `oracles`: the trusted trainer
    (`bpe.kit.oracles`)."""
    corpus = without_repeats(oracles, text, specials)
    if corpus is None:
        return None
    initial = len(oracles.initial_vocab(specials))
    expected = _learned(oracles, corpus, specials, vocab_size - initial)
    if not expected:
        return None
    asked = vocab_size if stops_early else initial + len(expected)
    with tempfile.TemporaryDirectory(prefix="bpe-kit-probe-") as folder:
        path = Path(folder) / "without-repeats.txt"
        path.write_bytes(corpus.encode("utf-8"))
        try:
            got = train(path, asked)
        except Exception:  # a crash or a wrong shape here is the test's own failure, said already
            return None
    if [tuple(p) for p in got] != expected:
        return None
    summary = REPEATS["summary"]
    return dict(REPEATS, summary=_(summary))


def without_repeats(oracles: ModuleType, text: str, specials: list[str]) -> str | None:
    """`text` with each word where a token can meet itself (`taken_out`) spelled, where it stands,
    with characters all different: " abab" becomes " abcd", "²²" becomes "²³". Each character
    keeps its place, its kind (a letter, a digit) and its length in bytes, so the text keeps its
    words, their neighbours and its every offset, and a fault of anything else (a pattern,
    whitespace, reading or cutting the file) still shows; and the words where those faults most
    often live are never respelled: runs of whitespace, punctuation, contractions, the first and
    last words of the text. None when a word is too long to respell, or when the text so
    respelled does not pre-tokenize into the same words in the same places."""
    pretokens, split_on_specials = oracles.pretokens, oracles.split_on_specials
    listed = set(specials)
    parts = split_on_specials(text, specials)
    words = [w for p in parts if p not in listed for w in regex.findall(GPT2_PATTERN, p)]
    ends = {w.encode("utf-8") for w in words[:1] + words[-1:]}
    out, made = [], set()
    for part in parts:
        if part in listed:
            out.append(part)
            continue
        for word in regex.findall(GPT2_PATTERN, part):
            raw = word.encode("utf-8")
            if raw in ends or not taken_out(raw):
                out.append(word)
                continue
            new = _respelled(word)
            if new is None:
                return None
            made.add(new.encode("utf-8"))
            out.append(new)
    corpus = "".join(out)
    kept = {w for w in pretokens(text, specials) if w in ends or not taken_out(w)}
    if set(pretokens(corpus, specials)) - kept - made:
        return None  # a respelled word joined a neighbour, or split
    return corpus


_SQUARE = re.compile(rb"(.+)\1", re.DOTALL)  # a string repeated at once: "aa", "abab"
_LETTER_OR_DIGIT = regex.compile(r"[\p{L}\p{N}]")


def taken_out(word: bytes) -> bool:
    """Can a token meet itself in `word` (a pre-token), and is it a word of letters or digits?
    Two equal tokens side by side spell the same bytes twice in a row: a word without such a
    square never holds them, whatever is merged. Runs of whitespace or punctuation and
    contractions ("'ll") are kept even with one: they are where other faults live."""
    text = word.decode("utf-8")
    return bool(_SQUARE.search(word)) and bool(_LETTER_OR_DIGIT.search(text)) and not text.startswith("'")


def _pool(kind: str, ranges: Iterable[tuple[int, int]]) -> dict[int, list[str]]:
    """The characters of `kind` (a Unicode class) in `ranges`, by their length in UTF-8."""
    found: dict[int, list[str]] = {}
    for lo, hi in ranges:
        for c in map(chr, range(lo, hi)):
            if regex.fullmatch(kind, c):
                found.setdefault(len(c.encode("utf-8")), []).append(c)
    return found


# Letters and digits of each UTF-8 length: ASCII, Latin-1 and Latin Extended-A, CJK, and beyond.
_LETTERS = _pool(r"\p{L}", [(0x41, 0x5B), (0x61, 0x7B), (0xC0, 0x180), (0x4E00, 0x4F00), (0x20000, 0x20100)])
_DIGITS = _pool(r"\p{N}", [(0x30, 0x3A), (0xB2, 0xBF), (0x660, 0x66A), (0x2460, 0x24A0), (0x1D7CE, 0x1D800)])


def _respelled(word: str) -> str | None:
    """`word` with each letter or digit replaced by one of the same kind and UTF-8 length, no two
    the same (so no square); None when a pool runs out or a character is neither."""
    lead = " " if word.startswith(" ") else ""
    taken: dict[tuple[str, int], int] = {}  # how many of each pool this word has used
    out = [lead]
    for c in word[len(lead) :]:
        kind = "L" if regex.match(r"\p{L}", c) else "N" if regex.match(r"\p{N}", c) else None
        if kind is None:
            return None
        n = len(c.encode("utf-8"))
        pool = (_LETTERS if kind == "L" else _DIGITS).get(n, [])
        k = taken.get((kind, n), 0)
        if k >= len(pool):
            return None
        out.append(pool[k])
        taken[kind, n] = k + 1
    new = "".join(out)
    return None if _SQUARE.search(new.encode("utf-8")) else new


def _learned(oracles: ModuleType, corpus: str, specials: list[str], limit: int) -> list:
    return list(oracles.greedy(oracles.Replay(corpus, list(specials)), limit))
