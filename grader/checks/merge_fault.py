"""Is a wrong list of merges explained by the tie-break alone?

A wrong tie-break makes nearly every list of merges wrong, so one fault fails every training test.
The grade charges such a fault up to a cap (grader/charges.py), but only when it is proven to be
the ONLY fault of that output: otherwise a second bug could hide behind the first one's cap. The
proof is a replay of the student's own merges on the contract's pre-tokens: each merge must be a
most frequent pair at its step (given the student's own merges before it), and training must stop
where the contract says; and the trainer, asked once more (grader/checks/tie_probe.py), must count
the pairs where the merges first differ as the contract does. Then the merges are a correct BPE
whose ties went another way, and nothing else.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import regex

from data.corpus import EOT
from grader.bpe_facts import golden
from grader.bpe_facts.golden import first_difference
from grader.bpe_facts.mistakes import BY_ID
from grader.bpe_facts.pieces import reference_pretokenize
from grader.checks.repeat_probe import repeats_fault
from grader.checks.tie_probe import counts_confirmed
from grader.i18n import N_, _
from grader.terms import Cause

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from types import ModuleType

    from grader.sandbox.kit import StudentObject

TIE_BREAK: Cause = {
    "key": "tie-break",
    "where": "train_bpe",
    "summary": N_("ties broken another way in train_bpe"),  # translated when charged (`tie_break_cause`)
    "one_fault": True,
}


def merge_fault(
    oracles: ModuleType,
    case: golden.TrainCase,
    specials: list[str],
    got: list,
    vocab: object,
    contract: str = "kit",
    train: Callable[[Path, int], list] | None = None,
) -> Cause | None:
    """The cause (data) of wrong merges when one fault alone explains them: too few or too many
    merges (or none once the best pair occurs once), a cut where no listed special token is, another tie-break, exactly the merges of a
    classic mistake, or wrong merges only on words where a token meets itself (repeat_probe.py, asking
    `train`); None otherwise. The vocab must follow the merges (bytes, the special tokens,
    one token per merge), or a second fault could hide in it. `train(path, vocab_size)`: the
    student's trainer with these special tokens, asked to confirm a tie-break (tie_probe.py) and to
    train on the text with those words respelled (repeat_probe.py). `oracles`: what the checks may
    ask of the trusted oracles (`bpe.kit.oracles`); without them (None), no fault is proven."""
    if oracles is None or not vocab_follows(oracles, vocab, specials, got, contract):
        return None
    diagnostics = case.diagnostics()
    text = case.corpus_text()
    limit = case.vocab_size - 256 - len(dict.fromkeys(case.special_tokens))
    asked_vocab_size = 256 + len(dict.fromkeys(specials)) + limit  # as the test asked (a stand-in counts)
    return (
        stops_at_once_fault(case.merges, got, diagnostics.steps)
        or merge_count_fault(
            case.merges, got, len(dict.fromkeys(specials)), lambda n: learned_on(oracles, text, specials, n)
        )
        or eot_apart_fault(oracles, text, specials, got, limit)
        or tie_break_cause(oracles, text, specials, case.merges, got, diagnostics, case.stops_early, train)
        or mistake_fault(diagnostics, got)
        or specials_counted_fault(oracles, text, specials, got, limit)
        or unescaped_fault(oracles, text, specials, got, limit)
        or (
            repeats_fault(oracles, text, specials, asked_vocab_size, train, case.stops_early)
            if train is not None
            else None
        )
    )


# A trainer that treats "<|endoftext|>" apart whatever the special tokens listed (CS336's chunking
# example cuts there): one fault, one key, in three shapes; the words say which.
EOT_APART = "<|endoftext|> apart whatever the list"
EOT_SHAPES = {
    "removed": (
        N_("train_bpe treats <|endoftext|> as a special token though it is not listed"),
        N_(
            "Only the special tokens passed in special_tokens are special: here '<|endoftext|>' is "
            "ordinary text, pre-tokenized and merged like any other."
        ),
    ),
    "cut": (
        N_("train_bpe cuts the file at <|endoftext|> though it is not a listed special token"),
        N_(
            "Your trainer cuts the text into chunks before each '<|endoftext|>' (to pre-tokenize them "
            "apart, or in parallel), but here it is not a special token: a cut there splits the "
            "pre-token it falls in. Cut only at the special tokens listed; with none, do not cut."
        ),
    ),
    "only": (
        N_("train_bpe cuts the text at <|endoftext|> alone, not at the special tokens listed"),
        N_(
            "Your trainer takes '<|endoftext|>' as the one special token, whatever special_tokens holds: "
            "cut the text at each special token listed, and at no other."
        ),
    ),
}


def eot_apart_fault(
    oracles: ModuleType, text: str, specials: list[str], got: list, limit: int
) -> Cause | None:
    """The shape of treating "<|endoftext|>" apart whose merges are exactly `got`, with its words
    as `hint`: that fault alone makes these merges."""
    pretokens = oracles.pretokens
    if EOT not in text:
        return None
    shapes = []
    if EOT not in specials:
        first, *rest = text.split(EOT)
        cut = pretokens(first, specials)
        for piece in rest:
            cut += pretokens(EOT + piece, specials)
        shapes += [("removed", pretokens(text, [*specials, EOT])), ("cut", cut)]
    if set(specials) - {EOT}:
        shapes.append(("only", pretokens(text, [EOT])))
    for how, counts in shapes:
        if learned(oracles, counts, limit) == [tuple(p) for p in got]:
            summary, hint = EOT_SHAPES[how]
            return {
                "key": EOT_APART,
                "where": "train_bpe",
                "summary": _(summary),
                "one_fault": True,
                "hint": hint,
            }
    return None


def mistake_fault(diagnostics: golden.Diagnostics, got: list) -> Cause | None:
    """The classic mistake (grader/bpe_facts/mistakes.py) whose stored merges are exactly `got`, all
    of them: that mistake alone makes these merges."""
    for key, mistake in BY_ID.items():
        if diagnostics.mistakes.get(key) == list(got):
            summary = _inside_parentheses(_(mistake.name))
            return {"key": f"mistake {key}", "where": "train_bpe", "summary": summary, "one_fault": True}
    return None


# Special tokens cut out, then pre-tokenized and counted as text: the stored not-split mistake in
# another shape (both count the special tokens' bytes as text, and where one kind of special token
# stands between letters they make the same merges), so one fault, under that mistake's key.
SPECIALS_AS_TEXT: Cause = {
    "key": "mistake specials_not_split",
    "where": "train_bpe",
    "summary": N_("train_bpe counts the special tokens it cut out as text"),  # translated when returned
    "one_fault": True,
    "hint": N_(
        "Your trainer cuts the special tokens out, then pre-tokenizes and counts them like the text "
        "around them, so their bytes get merged. Drop each special token once it is cut out: no "
        "merge may use its bytes."
    ),
}


def specials_counted_fault(
    oracles: ModuleType, text: str, specials: Iterable[str], got: list, limit: int
) -> Cause | None:
    """SPECIALS_AS_TEXT when `got` are exactly the merges a correct trainer learns from `text` with
    each special token it holds counted as text (pre-tokenized) besides the pieces between them."""
    specials = list(dict.fromkeys(specials))
    cut = [piece for piece in oracles.split_on_specials(text, specials) if piece in specials]
    if not cut:
        return None
    counts = oracles.pretokens(text, specials)
    for piece in cut:
        counts.update(oracles.pretokens(piece, []))
    if learned(oracles, counts, limit) != [tuple(p) for p in got]:
        return None
    summary = SPECIALS_AS_TEXT["summary"]
    return dict(SPECIALS_AS_TEXT, summary=_(summary))


def unescaped_cause() -> Cause:
    """The stored unescaped-specials mistake's cause (its key, its words), for a shape of it that
    no stored merges hold: see `unescaped_fault`."""
    mistake = BY_ID["specials_unescaped"]
    return {
        "key": "mistake specials_unescaped",
        "where": "train_bpe",
        "summary": _(mistake.name),
        "one_fault": True,
        "hint": mistake.explanation,
    }


def unescaped_fault(
    oracles: ModuleType, text: str, specials: Iterable[str], got: list, limit: int
) -> Cause | None:
    """The unescaped-specials mistake when `got` are exactly the merges a correct trainer learns
    from `text` cut by the special tokens joined into a regex without escaping (longest first, or
    in the order given), that regex's matches dropped (a trainer that splits on it) or counted as
    text: shapes of the stored mistake (given order, matches counted), under its key."""
    specials = list(dict.fromkeys(specials))
    if not specials:
        return None
    want = [tuple(p) for p in got]
    tried = []
    for order in (sorted(specials, key=len, reverse=True), specials):
        try:
            pattern = regex.compile("|".join(order))
        except regex.error:
            return None
        if pattern.pattern in tried:
            continue
        tried.append(pattern.pattern)
        between = Counter(
            w.encode("utf-8", "surrogatepass")
            for piece in pattern.split(text)
            for w in reference_pretokenize(piece or "")
        )
        matched = Counter(
            w.encode("utf-8", "surrogatepass")
            for m in pattern.finditer(text)
            for w in reference_pretokenize(m.group())
        )
        if learned(oracles, between, limit) == want or learned(oracles, between + matched, limit) == want:
            return unescaped_cause()
    return None


def specials_as_text_fault(
    oracles: ModuleType,
    text: str,
    specials: Iterable[str],
    vocab_size: int,
    vocab: StudentObject,
    got: list,
    contract: str = "kit",
) -> Cause | None:
    """SPECIALS_AS_TEXT for a check with no stored merges to compare with (2.18's file of special tokens only), when the vocab
    follows `got` and a correct trainer that counts the special tokens as text learns exactly them."""
    specials = list(dict.fromkeys(specials))
    if oracles is None or not vocab_follows(oracles, vocab, specials, got, contract):
        return None
    return specials_counted_fault(oracles, text, specials, got, vocab_size - 256 - len(specials))


def _inside_parentheses(name: str) -> str:
    """A mistake's name as the "same cause as" line reads it, inside its parentheses: "merged across
    pre-tokens: no pre-tokenization" for "merged across pre-tokens (no pre-tokenization)"."""
    for opening, closing, colon in ((" (", ")", ": "), ("（", "）", "：")):
        if name.endswith(closing) and opening in name:
            return name.replace(opening, colon, 1).removesuffix(closing)
    return name


def first_merges_fault(
    oracles: ModuleType,
    text: str,
    specials: Iterable[str],
    expected: list,
    got: list,
    diagnostics: golden.Diagnostics,
) -> Cause | None:
    """For a check of the first merges only (the training speed gate: `got` cut to as many as
    `expected`): the tie-break or the classic mistake that alone explains them, else None."""
    return tie_break_cause(
        oracles, text, specials, expected, got, diagnostics, stops_early=False
    ) or mistake_fault(diagnostics, got)


SPECIALS_NOT_COUNTED: Cause = {
    "key": "merge count: special tokens not in vocab_size",
    "where": "train_bpe",
    "summary": N_("train_bpe does not count the special tokens in vocab_size"),  # translated when returned
    "one_fault": True,
}


STOPS_AT_ONCE: Cause = {
    "key": "merge count: stops when the best pair occurs once",
    "where": "train_bpe",
    "summary": N_("train_bpe stops when the most frequent pair occurs only once"),  # translated when returned
    "one_fault": True,
}


def stops_at_once_fault(expected: list, got: list, steps: list) -> Cause | None:
    """The merges are exactly the expected ones up to the first step where the most frequent pair
    occurs once (`steps`: the case's stored counts), and none after: CharBPE's stopping rule, one
    fault on every case, however many merges it leaves out (a count alone differs per case)."""
    k = next((i for i, step in enumerate(steps[: len(expected)]) if step.top < 2), None)
    if k is None or [tuple(p) for p in got] != [tuple(p) for p in expected[:k]]:
        return None
    summary = STOPS_AT_ONCE["summary"]
    return dict(STOPS_AT_ONCE, summary=_(summary))


def specials_not_counted_fault(
    oracles: ModuleType,
    text: str,
    specials: Iterable[str],
    vocab_size: int,
    vocab: object,
    got: list,
    contract: str = "kit",
) -> Cause | None:
    """SPECIALS_NOT_COUNTED when `got` are exactly the merges a correct trainer learns from `text`
    with vocab_size - 256 merges allowed (one too many per special token) and the vocab follows
    them: for a check that has no stored merges to compare with (2.11's small vocab_size)."""
    specials = list(dict.fromkeys(specials))
    if oracles is None or not specials or not vocab_follows(oracles, vocab, specials, got, contract):
        return None
    if [tuple(p) for p in got] != [tuple(p) for p in learned_on(oracles, text, specials, vocab_size - 256)]:
        return None
    summary = SPECIALS_NOT_COUNTED["summary"]
    return dict(SPECIALS_NOT_COUNTED, summary=_(summary))


def merge_count_fault(
    expected: list, got: list, n_specials: int = 0, learned_up_to: Callable[[int], list] | None = None
) -> Cause | None:
    """The merges are right but stop too early or go on too long: the count is the only fault.
    One merge too many per special token is one fault, however many special tokens a test has;
    fewer than that when the corpus runs out of pairs first, which `learned_up_to(limit)` (the
    merges a correct trainer makes with `limit` merges allowed) proves."""
    n = min(len(expected), len(got))
    if len(got) == len(expected) or got[:n] != expected[:n]:
        return None
    delta = len(got) - len(expected)
    if delta == n_specials or (
        0 < delta < n_specials
        and learned_up_to is not None
        and learned_up_to(len(expected) + n_specials) == list(got)
    ):
        summary = SPECIALS_NOT_COUNTED["summary"]
        return dict(SPECIALS_NOT_COUNTED, summary=_(summary))
    summary = (
        _("train_bpe makes {count} merge(s) too few")
        if delta < 0
        else _("train_bpe makes {count} merge(s) too many")
    ).format(count=abs(delta))
    return {"key": f"merge count {delta:+d}", "where": "train_bpe", "summary": summary, "one_fault": True}


def tie_break_cause(
    oracles: ModuleType,
    text: str,
    specials: Iterable[str],
    expected: list,
    got: list,
    diagnostics: golden.Diagnostics,
    stops_early: bool,
    train: Callable[[Path, int], list] | None = None,
) -> Cause | None:
    """The tie-break cause when it alone explains `got` (merges learned on `text`), else None.
    With `train` (the student's trainer), only when it counts the pairs right where the merges
    first differ (tie_probe.py): wrong counts that move only tied pairs look like a tie-break."""
    k = first_difference(expected, got)
    if k is None or k >= len(expected) or k >= len(got):
        return None
    step = diagnostics.steps[k]
    n = step.counts.get(tuple(got[k]))
    if n != step.top and not (n is None and step.others == step.top):
        return None  # not even the first difference is a tie: cheap to rule out before a replay
    if not only_ties_differ(oracles, text, list(specials), got, len(expected), stops_early):
        return None
    if train is not None and not counts_confirmed(oracles, text, list(specials), got, expected, k, train):
        return None
    summary = TIE_BREAK["summary"]
    return dict(TIE_BREAK, summary=_(summary))


def vocab_follows(
    oracles: ModuleType, vocab: object, specials: list[str], merges: list, contract: str = "kit"
) -> bool:
    """Is `vocab` exactly what `merges` make: bytes 0-255, the special tokens, one token per merge
    (the CS336 contract: the same tokens, any ids)?"""
    if not isinstance(vocab, dict):
        return False
    made = oracles.initial_vocab(list(specials))
    for a, b in merges:
        made[len(made)] = a + b
    if contract == "cs336":
        return sorted(vocab.values()) == sorted(made.values())
    return vocab == made


def only_ties_differ(
    oracles: ModuleType, text: str, specials: list[str], got: list, length: int, stops_early: bool
) -> bool:
    """True when every merge of `got` is a most frequent pair at its step on the contract's
    pre-tokens of `text`, and `got` stops where a correct trainer must: after `length` merges, or,
    for a case that runs out of pairs, when no pair is left."""
    if not stops_early and len(got) != length:
        return False
    replay = oracles.PairCounts(oracles.Replay(text, specials).words)
    for pair in got:
        counts = replay.counts
        if not counts or counts.get(tuple(pair)) != max(counts.values()):
            return False
        replay.apply(tuple(pair))
    return not stops_early or not replay.counts


def learned_on(oracles: ModuleType, text: str, specials: Iterable[str], limit: int) -> list:
    """The merges a correct trainer learns from `text` with up to `limit` merges."""
    return list(oracles.greedy(oracles.Replay(text, list(specials)), limit))


def learned(oracles: ModuleType, counts: Counter, limit: int) -> list:
    """The merges a correct trainer learns from these pre-token counts (bytes -> count)."""
    return list(oracles.greedy(oracles.Replay.of_pretokens(counts), limit))
