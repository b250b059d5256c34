"""A small, slow, obviously correct byte-level BPE trainer, plus the knobs that make it wrong.

The graded suite needs two things from a trainer it can trust: the golden merges (written once by
`grader.oracles.fixtures`) and, when a student's merges differ, a way to ask "which classic mistake gives
exactly these merges?". Both come from one function, `train`, driven by a `Rules` value: the correct
rules are `CORRECT`; `grader.oracles.wrong_rules` flips one knob at a time.

The algorithm recounts every pair at every step over the distinct pre-tokens (weighted by how often
each occurs). That is the simplest thing that can be checked by reading it; it is fast enough for the
fixture corpora (a few dozen KB).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import regex

from grader.bpe_facts.gpt2 import BYTE_TO_UNICODE, GPT2_PATTERN
from grader.oracles.indexed import indexed_merges

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

# What a student gets by porting GPT2_PATTERN to the standard `re` module, which has no \p{...}.
RE_MODULE_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"""


@dataclasses.dataclass(frozen=True)
class Rules:
    """How to train. Every field has one correct value (see CORRECT)."""

    tie_break: str = (
        "greater_bytes"  # greater_bytes|smaller_bytes|first_seen|greater_str|greater_rendered|lowest_ids
    )
    specials: str = "split_longest_first"  # split_longest_first|split_given_order|unescaped|not_split|removed
    pretokenize: str = "regex"  # regex|re|none
    newlines: str = "raw"  # raw|translated
    index: str = "complete"  # complete|missing_right: an incremental trainer's index of words per pair


CORRECT = Rules()


def split_on_specials(text: str, specials: Iterable[str], how: str = "split_longest_first") -> list[str]:
    """Split around special tokens; specials are their own pieces. `how` selects the (wrong) variants."""
    specials = list(dict.fromkeys(specials))
    if not specials or how == "not_split":
        return [text] if text else []
    if how == "removed":
        for special in sorted(specials, key=len, reverse=True):
            text = text.replace(special, "")
        return [text] if text else []
    if how == "unescaped":
        pattern = "(" + "|".join(specials) + ")"
    else:
        ordered = sorted(specials, key=len, reverse=True) if how == "split_longest_first" else specials
        pattern = "(" + "|".join(regex.escape(s) for s in ordered) + ")"
    return [piece for piece in regex.split(pattern, text) if piece]


def pretokens(text: str, specials: list[str], rules: Rules = CORRECT) -> Counter:
    """How often each pre-token (as bytes) occurs; special tokens themselves are not counted."""
    if rules.newlines == "translated":
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    special_set = set(specials)
    counts: Counter = Counter()
    for piece in split_on_specials(text, specials, rules.specials):
        if piece in special_set:
            continue
        if rules.pretokenize == "none":
            words = [piece]
        elif rules.pretokenize == "re":
            import re

            words = re.findall(RE_MODULE_PATTERN, piece)
        else:
            words = regex.findall(GPT2_PATTERN, piece)
        counts.update(word.encode("utf-8") for word in words)
    return counts


def _tie_key(rules: Rules, ids: dict[bytes, int]):
    """A key such that max(candidates, key=...) picks the winner among pairs with equal counts."""
    if rules.tie_break == "greater_bytes":
        return lambda pair: pair
    if rules.tie_break == "smaller_bytes":
        return lambda pair: tuple(_Reversed(t) for t in pair)
    if rules.tie_break == "greater_str":
        return lambda pair: tuple(t.decode("utf-8", "replace") for t in pair)
    if rules.tie_break == "greater_rendered":
        return lambda pair: tuple("".join(BYTE_TO_UNICODE[b] for b in t) for t in pair)
    if rules.tie_break == "lowest_ids":
        return lambda pair: tuple(-ids[t] for t in pair)
    if rules.tie_break == "first_seen":
        return lambda pair: 0  # max() keeps the first of equals: the first pair met in corpus order
    raise ValueError(f"unknown tie_break {rules.tie_break!r}")


class _Reversed:
    """Inverts ordering, so that max() picks the smallest."""

    __slots__ = ("value",)

    def __init__(self, value: bytes) -> None:
        self.value = value

    def __lt__(self, other: _Reversed) -> bool:
        return self.value > other.value

    def __eq__(self, other: _Reversed) -> bool:
        return self.value == other.value


def count_pairs(words: list[tuple[list[bytes], int]]) -> dict[tuple[bytes, bytes], int]:
    """Pair counts; dict order is the order in which pairs are first met (corpus order)."""
    counts: dict[tuple[bytes, bytes], int] = {}
    for tokens, freq in words:
        for pair in itertools.pairwise(tokens):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def _apply(tokens: list[bytes], pair: tuple[bytes, bytes]) -> list[bytes]:
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i] == pair[0] and tokens[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


class Replay:
    """The corpus as pre-tokens, merged step by step; used to train and to explain a step."""

    def __init__(self, text: str, specials: list[str], rules: Rules = CORRECT) -> None:
        self.rules = rules
        self.words = [
            ([bytes([b]) for b in word], freq) for word, freq in pretokens(text, specials, rules).items()
        ]

    @classmethod
    def of_pretokens(cls, counts: Counter) -> Replay:
        """The replay of pre-tokens counted elsewhere (a submission's own, to explain its merges)."""
        return cls("", [])._with([([bytes([b]) for b in word], freq) for word, freq in counts.items()])

    def _with(self, words: list[tuple[list[bytes], int]]) -> Replay:
        self.words = words
        return self

    def apply(self, pair: tuple[bytes, bytes]) -> None:
        self.words = [
            (_apply(tokens, pair) if len(tokens) > 1 else tokens, freq) for tokens, freq in self.words
        ]

    def counts(self) -> dict[tuple[bytes, bytes], int]:
        return count_pairs(self.words)


class PairCounts:
    """The pair counts of a replay, kept up to date as merges are applied: after each `apply`,
    equal to `count_pairs` of the words a `Replay` would hold, without recounting the whole corpus
    (each merge touches only the words that hold its pair). The order pairs were met in is not
    kept, so this answers "how often", never a tie-break by first occurrence."""

    def __init__(self, words: list[tuple[list[bytes], int]]) -> None:
        self.words = [tokens for tokens, _ in words]
        self.freqs = [freq for _, freq in words]
        self.counts: dict[tuple[bytes, bytes], int] = {}
        self._where: dict[tuple[bytes, bytes], set[int]] = {}
        for i, tokens in enumerate(self.words):
            self._add(i, tokens)

    def _add(self, i: int, tokens: list[bytes]) -> None:
        for pair in itertools.pairwise(tokens):
            self.counts[pair] = self.counts.get(pair, 0) + self.freqs[i]
            self._where.setdefault(pair, set()).add(i)

    def _remove(self, i: int, tokens: list[bytes]) -> None:
        for pair in itertools.pairwise(tokens):
            left = self.counts[pair] - self.freqs[i]
            if left:
                self.counts[pair] = left
            else:
                del self.counts[pair]

    def apply(self, pair: tuple[bytes, bytes]) -> None:
        for i in sorted(self._where.pop(pair, ())):
            tokens = self.words[i]
            merged = _apply(tokens, pair)
            if merged != tokens:
                self._remove(i, tokens)
                self._add(i, merged)
                self.words[i] = merged


def initial_vocab(specials: list[str]) -> dict[int, bytes]:
    vocab = {i: bytes([i]) for i in range(256)}
    for special in dict.fromkeys(specials):
        vocab[len(vocab)] = special.encode("utf-8")
    return vocab


def train(
    text: str, vocab_size: int, specials: list[str], rules: Rules = CORRECT, max_merges: int | None = None
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train on `text` (already decoded, no newline translation) under `rules`."""
    vocab = initial_vocab(specials)
    ids = {token: i for i, token in vocab.items()}
    merges: list[tuple[bytes, bytes]] = []
    replay = Replay(text, specials, rules)
    limit = vocab_size - len(vocab)
    if max_merges is not None:
        limit = min(limit, max_merges)
    if rules.index != "complete":  # grader/oracles/indexed.py: the incremental trainer's mistake
        chosen = iter(indexed_merges(pretokens(text, specials, rules), limit, missing_right=True))
    else:
        chosen = greedy(replay, limit, _tie_key(rules, ids))
    for best in chosen:
        merges.append(best)
        new = best[0] + best[1]
        vocab[len(vocab)] = new
        ids.setdefault(new, len(vocab) - 1)
    return vocab, merges


def greedy(
    replay: Replay, limit: int, tie: Callable[[tuple[bytes, bytes]], Any] = lambda pair: pair
) -> Iterator[tuple[bytes, bytes]]:
    """Yield up to `limit` merges, each the most frequent pair (ties: the greatest by `tie`), applied
    to `replay` before the next is chosen; stop early when no pair is left."""
    for _ in range(max(0, limit)):
        counts = replay.counts()
        if not counts:
            return
        top = max(counts.values())
        best = max((pair for pair, n in counts.items() if n == top), key=tie)
        yield best
        replay.apply(best)


def read_corpus(path: Path) -> str:
    """Read exactly as the contract says: UTF-8, no newline translation."""
    with open(path, "rb") as f:
        return f.read().decode("utf-8")
