"""Does a trainer go wrong only on words that repeat a byte? Asked of the trainer itself.

The pair counts after a merge are the part of a trainer students most often get subtly wrong, and
nearly always in words where a token meets itself: "aaaa" (merging (a, a) must not count the
overlapping pairs twice), "abab" (after merging (a, b), "ab ab" is a new pair on both sides). Such
a fault changes a few counts, the merges drift from there, and every training test fails; none of
its lists of merges is a tie, a classic mistake or a cut that the grader could replay.

But one fact can be checked: in a pre-token whose bytes are all different, no token ever meets
itself, whatever is merged. So the trainer is asked once more, on the test's own text with each
word that repeats a byte replaced by a special token (`without_repeats`): every other word stays
where it was, between the same neighbours. When the trainer then learns exactly the
contract's merges, the test failed only on words that repeat a byte: the concern of the test that
names repeated pairs (2.3), and one fault. A bug of ties, special tokens, pre-tokenization, the
file's ends or the number of merges shows on the words left too, and is charged as usual.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from grader.i18n import N_, _

REPEATS = {
    "key": "repeated bytes",
    "where": "train_bpe",
    "summary": N_("train_bpe goes wrong only on words that repeat a byte"),  # translated when returned
    "one_fault": True,
    "hint": N_(
        "Trained again on this test's text with each word that repeats a byte taken out, your "
        "trainer makes exactly the right merges: it goes wrong only on words such as 'aaaa', "
        "'abab' or a run of spaces. Most often that is the pair counts after a merge, where a "
        "token meets itself: merging (a, a) turns 'a a a a' into 'aa aa', and merging (a, b) turns "
        "'a b a b' into 'ab ab', a new pair (ab, ab). Count each pair once, with its neighbours "
        "taken from the word as it is after the merge."
    ),
}


def repeats_fault(
    text: str, specials: list[str], vocab_size: int, train: Callable[[Path, int], list], stops_early: bool
) -> dict | None:
    """The cause (data) when `train(path, vocab_size)` (the student's trainer, its merges) learns
    the contract's merges on the text with its words that repeat a byte taken out; None otherwise,
    or when that text teaches no merge (nothing would be shown).

    With fewer words, that text may run out of pairs before `vocab_size`: the trainer is then
    asked for just the merges it holds, so that stopping early, which is another test's concern,
    is asked only where the test itself asks it (`stops_early`)."""
    from grader.oracles.trainer import initial_vocab

    corpus = without_repeats(text, specials)
    if corpus is None:
        return None
    initial = len(initial_vocab(specials))
    expected = _learned(corpus, specials, vocab_size - initial)
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


def without_repeats(text: str, specials: list[str]) -> str | None:
    """`text` with each of its pre-tokens (the contract's) that repeats a byte replaced, where it
    stands, by the first special token: every other word keeps its place and its neighbours, so
    that a fault of anything but repeated bytes (a pattern, a cut, whitespace, the ends of the
    file) still shows. Whitespace just before a word taken out may then pre-tokenize otherwise
    ("\r" and "\n" become one "\r\n"): such a word, which the text did not hold, is taken out in
    turn. None without a special token to stand in, or when that does not settle."""
    from grader.oracles.trainer import pretokens

    if not specials:
        return None
    held = {w for w in pretokens(text, specials) if len(set(w)) == len(w)}
    corpus = text
    for _round in range(MAX_ROUNDS):
        if set(pretokens(corpus, specials)) <= held:
            return corpus
        corpus = _replaced(corpus, specials, held)
    return None


MAX_ROUNDS = 4  # each round takes out the words that the last one joined


def _replaced(text: str, specials: list[str], held: set[bytes]) -> str:
    """`text` with each pre-token not in `held` replaced by the first special token."""
    import regex

    from grader.checks.gpt2 import GPT2_PATTERN
    from grader.oracles.trainer import split_on_specials

    stand_in, listed, out = specials[0], set(specials), []
    for piece in split_on_specials(text, specials):
        if piece in listed:
            out.append(piece)
            continue
        out += (w if w.encode("utf-8") in held else stand_in for w in regex.findall(GPT2_PATTERN, piece))
    return "".join(out)


def _learned(corpus: str, specials: list[str], limit: int) -> list:
    from grader.oracles.trainer import Replay, greedy

    return list(greedy(Replay(corpus, list(specials)), limit))
