"""A special token missing from the vocab a tokenizer is given: proven the only fault by a replay.

Both contracts: a special token that the given vocab lacks gets the next free id when the tokenizer
is built (assignment/part3_tokenizer.md; CS336's handout: it is appended). A tokenizer that never
appends it fails every test whose input meets it: a KeyError, an id 0, the token encoded as text.
3.2 states the rule. Every test that fails on a tokenizer built from such a vocab is graded again
on a tokenizer built from the same vocab with those special tokens already in it (at the ids a
right tokenizer gives them). When that passes, the missing special token is proven the only fault
of the test (`one_fault`: "same cause as 3.2", within the cap of grader/charges.py); when it fails
in another way, that failure is a second, different bug, charged on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from grader.bpe_facts import golden
from grader.checks.diagnose import Diagnosed, Finding
from grader.checks.messages import explain_finding
from grader.sandbox.remote_errors import RemoteError
from grader.terms import Cause

if TYPE_CHECKING:
    from collections.abc import Iterable

WHERE = "BPETokenizer.__init__"


def missing(vocab: dict, special_tokens: Iterable[str] | None) -> list[str]:
    """The special tokens the vocab does not hold, in the order given, each once."""
    held = set(vocab.values())
    return [s for s in dict.fromkeys(special_tokens or []) if s.encode("utf-8") not in held]


def graded(
    vocab: dict,
    special_tokens: Iterable[str] | None,
    make: Callable[[dict], object],
    run: Callable[[dict], None],
) -> None:
    """`run(vocab)`: the test's checks on a tokenizer built from `vocab` (`make(vocab)` builds one).
    A failure that the special tokens missing from `vocab` alone explain is raised as that fault
    (see the module's words); any other failure as it is."""
    try:
        run(dict(vocab))
        return
    except NotImplementedError:
        raise
    except Exception as failure:  # the student's exception too (a RemoteError), never a time-out
        first = failure
    absent = missing(vocab, special_tokens)
    full = golden.with_specials(vocab, special_tokens)
    if not absent or appends(make, vocab, absent, full):
        raise first
    try:
        run(full)
    except NotImplementedError:
        raise first from None
    except Exception as again:
        if _text(again) == _text(first):
            raise first from None  # the special tokens have nothing to do with it
        raise _second(again, absent) from None
    raise _proven(first, absent, full) from None


def appends(make: Callable[[dict], object], vocab: dict, absent: list[str], full: dict) -> bool:
    """Does a tokenizer built from `vocab` encode each special token it lacks, alone, as the one
    id a right tokenizer gives it (the CS336 shim shows any id it chose as that one)?"""
    try:
        tok = make(dict(vocab))
        return all(tok.encode(s) == [_id_of(full, s)] for s in absent)
    except NotImplementedError:
        return True  # a stub: its own test says so, nothing to prove here
    except Exception:
        return False


def _id_of(vocab: dict, special: str) -> int:
    return min(i for i, t in vocab.items() if t == special.encode("utf-8"))


def cause(special: str) -> Cause:
    """The fault as data: the same key in every test, so that it is charged up to the cap (grader/charges.py)."""
    return {**Finding("special_missing", WHERE, special, None, None).cause(), "one_fault": True}


def _proven(first: Exception, absent: list[str], full: dict) -> Diagnosed:
    special = absent[0]
    at = _id_of(full, special)
    words = explain_finding(Finding("special_missing", WHERE, special, at, None))
    summary = words.split(": ", 1)[0]
    proof = (
        f"Built from the same vocab with {_names(absent)} already in it, your tokenizer passes this "
        "test: this is its only fault here."
    )
    seen = _text(first)
    # A diagnosis of the tokenizer's vocab already says these words: the proof goes right after them.
    message = seen.replace(words, f"{words}\n{proof}", 1) if words in seen else f"{words}\n{proof}\n{seen}"
    return _carrying(Diagnosed(message, {**cause(special), "summary": summary}), first)


def _second(again: Exception, absent: list[str]) -> Exception:
    """The failure that remains once the special tokens are in the vocab: another fault, charged."""
    if isinstance(again, RemoteError):
        return again  # a crash is charged where it happens, named by its own words
    note = (
        f"Your tokenizer does not give {_names(absent)} an id of its own (the vocab it is given lacks "
        "it); built from a vocab that already holds it, this test still fails, so this is another fault:\n"
    )
    failure = (
        Diagnosed(note + str(again), again.cause)
        if isinstance(again, Diagnosed)
        else AssertionError(note + str(again))
    )
    return _carrying(failure, again)


def _carrying(failure: Exception, source: Exception) -> Exception:
    """`failure` with the notes of `source` (hypothesis's smallest failing input)."""
    for note in getattr(source, "__notes__", None) or []:
        failure.add_note(note)
    return failure


def _names(specials: list[str]) -> str:
    return ", ".join(repr(s) for s in specials)


def _text(exc: Exception) -> str:
    """What the test saw fail, in the words a student reads."""
    if isinstance(exc, RemoteError):
        return exc.feedback()
    return str(exc) or type(exc).__name__
