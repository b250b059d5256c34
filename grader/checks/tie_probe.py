"""Does a trainer whose merges differ only at ties count the pairs right? Asked of the trainer itself.

A replay of the student's merges on the contract's pre-tokens (grader/checks/merge_fault.py) shows
that each merge was a most frequent pair at its step. That is what another tie-break gives, but
also what wrong counts give when they only move pairs that were tied: a trainer that cuts the file
where no listed special token is (at "<|endoftext|>", say) loses a few pairs, and where one of them
was the greatest of a tie, it takes another tied pair. The merges alone cannot tell the two apart.

So the trainer is asked once more, on a corpus built to leave it no tie to break: the case's text
four times, then a few words once, each holding the pair taken at a step where pairs were tied
(`probe`). At every step up to the first different merge (#k), one pair is then
the most frequent: the merge both trainers took, and at #k the pair the contract takes (G), one
occurrence ahead of the pair the student took instead. A trainer that counts right takes exactly
those merges, whatever its tie-break. One that counts G even once less than it occurs (four times
over, a lost occurrence costs four) does not take G: its counts, not its ties, differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

import itertools
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

SEPARATORS = ("\n\n", "\n", " ", "")  # after the special tokens: the first that keeps the pre-tokens
MAX_WORDS = 64  # words added to break ties: beyond that, no probe
MAX_STEPS_REPLAYED = 2000  # rounds x steps: each round replays every step up to the first difference
TIMES = 4  # the text's copies: a pair the text holds fewer times than another stays behind it


def counts_confirmed(
    oracles: ModuleType,
    text: str,
    specials: list[str],
    got: list,
    expected: list,
    k: int,
    train: Callable[[Path, int], list],
) -> bool:
    """True when `train(path, vocab_size)` (the student's trainer, its merges) takes, on the probe
    corpus, the merges of `got` before #k and then the contract's merge #k: its counts agree with
    the contract's where the merges first differ. False when no probe can be built or the trainer
    does otherwise (or fails). `oracles`: the trusted trainer's replay (`bpe.kit.oracles`)."""
    steps = [*map(tuple, got[:k]), tuple(expected[k])]
    corpus = probe(oracles, text, specials, steps, tuple(got[k]))
    if corpus is None:
        return False
    with tempfile.TemporaryDirectory(prefix="bpe-kit-probe-") as folder:
        path = Path(folder) / "probe.txt"
        path.write_bytes(corpus.encode("utf-8"))
        try:
            merges = train(path, 256 + len(dict.fromkeys(specials)) + len(steps))
        except Exception:  # a crash or a wrong shape here is the test's own failure, said already
            return False
    return [tuple(p) for p in merges[: len(steps)]] == steps


def probe(
    oracles: ModuleType, text: str, specials: list[str], steps: list[tuple], theirs: tuple
) -> str | None:
    """The text TIMES times plus a few words, such that each of `steps` is in turn the one most
    frequent pair, and the last one exactly one occurrence ahead of `theirs`; None when no such
    corpus is found. Each round replays the steps and adds a word for the first one still tied."""
    words: list[str] = []
    while len(words) <= MAX_WORDS and (len(words) + 1) * len(steps) <= MAX_STEPS_REPLAYED:
        corpus = _joined(oracles, text, specials, words)
        if corpus is None:
            return None
        unsettled, last = _unsettled(oracles, corpus, specials, steps)
        if unsettled is None:
            return corpus if last[steps[-1]] - last.get(theirs, 0) == 1 else None
        j, tied = unsettled
        if steps[j] not in tied:
            return None  # another pair leads: more words would not give this step back
        word = _holding(oracles, text, specials, steps[:j], steps[j], tied)
        if word is None:
            return None
        words.append(word)
    return None


def _unsettled(
    oracles: ModuleType, corpus: str, specials: list[str], steps: list[tuple]
) -> tuple[tuple | None, dict]:
    """((the first step whose most frequent pairs are not its pair alone, those pairs) or None,
    the pair counts at the last step replayed)."""
    replay, counts = oracles.Replay(corpus, specials), {}
    for j, pair in enumerate(steps):
        counts = replay.counts()
        top = max(counts.values(), default=0)
        tied = {p for p, n in counts.items() if n == top}
        if tied != {pair}:
            return (j, tied), counts
        replay.apply(pair)
    return None, counts


def _holding(
    oracles: ModuleType, text: str, specials: list[str], before: list[tuple], pair: tuple, tied: set
) -> str | None:
    """A word that is one pre-token holding `pair` after the merges `before`: the pair's own bytes
    when they are one, else a pre-token of `text`; the one holding the fewest of the other `tied`
    pairs, then the one holding the fewest pairs."""
    pretokens = oracles.pretokens
    candidates = set(pretokens(text, specials))
    for own in _completed(pair[0] + pair[1]):
        if list(pretokens(own, specials)) == [own.encode("utf-8")]:
            candidates.add(own.encode("utf-8"))
    replay = oracles.Replay.of_pretokens(Counter(dict.fromkeys(candidates, 1)))
    for done in before:
        replay.apply(done)
    found = []
    for tokens, _ in replay.words:
        held = set(itertools.pairwise(tokens))
        if pair in held:
            found.append((len(held & tied), len(held), b"".join(tokens)))
    return min(found)[2].decode("utf-8") if found else None


def _completed(raw: bytes) -> list[str]:
    """`raw` as text; or, when it ends inside a character, each character it starts (two bytes of
    one character are held by any character that starts with them)."""
    try:
        return [raw.decode("utf-8")]
    except UnicodeDecodeError:
        pass
    for n in (1, 2):
        found = []
        for tail in itertools.product(range(0x80, 0xC0), repeat=n):
            try:
                found.append((raw + bytes(tail)).decode("utf-8"))
            except UnicodeDecodeError:
                continue
        if found:
            return found
    return []


def _joined(oracles: ModuleType, text: str, specials: list[str], words: list[str]) -> str | None:
    """The text TIMES times, then `words`, joined so that the pre-tokens with a pair are exactly
    the text's, TIMES times, and the words; None when no separator does that."""

    def paired(s: str) -> Counter:
        return Counter({w: n for w, n in oracles.pretokens(s, specials).items() if len(w) > 1})

    want = Counter({w: TIMES * n for w, n in paired(text).items()}) + Counter(
        w.encode("utf-8") for w in words
    )
    for sep in (*dict.fromkeys(specials), *SEPARATORS):
        corpus = sep.join([text] * TIMES + words)
        if paired(corpus) == want:
            return corpus
    return None
