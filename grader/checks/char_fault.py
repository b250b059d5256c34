"""Is a wrong CharBPE (Part 1) explained by one fault alone: merge(), or a training that learns nothing?

CharBPE trains and encodes with merge(), so a wrong merge() fails 1.1 and the tests after it. It
is one fault, charged up to the cap (grader/charges.py), but only where it is proven the ONLY fault
of a failure: the contract's CharBPE training (and encoding), replayed with the student's own
merge(), gives exactly the student's answer. A CharBPE.train that learns no merge at all, with the
right vocab, is one fault too, whatever the text. The contract's CharBPE is the trusted oracles'
(`bpe.kit.oracles`): without them (the handout) no fault is proven.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from grader.checks.diagnose import Diagnosed
from grader.errors import GradingAbort
from grader.i18n import N_, _

if TYPE_CHECKING:
    from grader.sandbox.kit import Bpe, StudentObject

MERGE = {
    "key": "merge()",
    "where": "merge",
    "summary": N_("your merge() replaces pairs differently"),  # translated when raised (`cause`)
    "one_fault": True,
}
LEARNS_NOTHING = {
    "key": "CharBPE.train learns nothing",
    "where": "CharBPE.train",
    "summary": N_("your CharBPE.train learns no merge"),
    "one_fault": True,
}


def cause(fault: dict) -> dict:
    """`fault` with its summary translated."""
    summary = fault["summary"]
    return dict(fault, summary=_(summary))


@contextlib.contextmanager
def one_fault(find: Callable[[], dict | None]) -> Iterator[None]:
    """A failure inside is charged as `find()`'s fault (a cause, or None: charged as it is)."""
    try:
        yield
    except Diagnosed:
        raise
    except AssertionError as failure:
        found = asked(find)
        if found is None:
            raise
        raise Diagnosed(str(failure), found) from None


def training_fault(bpe: Bpe, text: str, num_merges: int, model: StudentObject) -> dict | None:
    """The one fault that makes `model` the answer of CharBPE.train(text, num_merges), or None."""
    if bpe.kit.oracles is None:
        return None
    char_bpe = bpe.kit.oracles.char_bpe
    vocab, merges = _state(model)
    want_vocab, want_merges = char_bpe.train(text, num_merges)
    if (vocab, merges) == (want_vocab, want_merges):
        return None
    if not merges and want_merges and vocab == char_bpe.train(text, 0)[0]:
        return cause(LEARNS_NOTHING)
    if char_bpe.train(text, num_merges, merge=_students_merge(bpe)) == (vocab, merges):
        return cause(MERGE)
    return None


def round_trip_fault(
    bpe: Bpe, model: StudentObject, text: str, trained_on: str, num_merges: int
) -> dict | None:
    """merge() when it alone breaks the round trip of `text`: the model is its training with the
    student's merge() (`training_fault`), its ids are the contract's encoding with that merge(),
    and its decode joins their strings, as the contract's does."""
    if training_fault(bpe, trained_on, num_merges, model) != cause(MERGE):
        return None
    char_bpe = bpe.kit.oracles.char_bpe
    vocab, merges = _state(model)
    ids = list(model.encode(text))
    if ids != char_bpe.encode(vocab, merges, text, _students_merge(bpe)):
        return None
    if not all(isinstance(i, int) and 0 <= i < len(vocab) for i in ids):
        return None
    return cause(MERGE) if model.decode(ids) == "".join(vocab[i] for i in ids) else None


def _state(model: StudentObject) -> tuple[list, list]:
    return list(model.vocab), json.loads(json.dumps(model.merges))


def _students_merge(bpe: Bpe):
    def merge(ids: list[int], pair: Sequence[int], new_id: int) -> list[int]:
        got = bpe.merge(list(ids), tuple(pair), new_id)
        if not isinstance(got, list):
            raise TypeError("merge() did not return a list")
        return got

    return merge


def asked(find: Callable[[], dict | None]) -> dict | None:
    """`find()`, or None when the student's code cannot answer it (an error, a call that does not end)."""
    try:
        return find()
    except (Exception, GradingAbort):
        return None
