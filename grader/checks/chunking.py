"""3.10: encode_iterable must give encode's ids for a text however the text is cut into chunks.

The chunkings are a systematic family, not a random draw: the whole text, every single cut (empty
chunks at either end included), every pair of cuts when the text is short, and one character per
chunk. The texts (grader/oracles/cases.py, `_CHUNK_TEXTS`) put a cut inside and beside every kind
of GPT-2 pre-token, and their tokenizer turns each pre-token into one token, so any other way of
cutting the text into pre-tokens gives other ids.

Each call crosses the sandbox (a round trip), and a text has hundreds of chunkings: they go in one
stream, each followed by a special token, whenever that token cuts the stream cleanly (it does not
join the text's own specials into a longer one). A special token is a hard boundary, so a right
encode_iterable gives the text's ids, then the special's, once per chunking. When a stream goes
wrong, its chunkings are tried one by one, smallest first, to name the smallest that fails; the
stream itself is charged only when they all pass and the submission's own encode does cut it
cleanly at the special token (else the fault is encode's, charged by the encode tests).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.checks.batched import cuts_cleanly
from grader.checks.encoding_check import unknown_id
from grader.checks.shapes import check_ids
from grader.i18n import N_, _

if TYPE_CHECKING:
    from grader.sandbox.kit import StudentObject

PAIR_CUTS_UP_TO = 24  # characters: texts this short are also cut at every pair of points
# Chunkings per stream: a few KB, so an encode_iterable that is slow on a long stream (it re-reads
# all it holds at every chunk) still meets 3.10's per-call CPU limit, which a correct one does.
STREAM_CHUNKINGS = 64
HINT = N_(
    "Hint: after each chunk, yield only what no later text can change and keep the rest for the next "
    'chunk: the last pre-token, the one before it too when together they may still become one ("\'l" '
    'then "l" is "\'ll"), and anything that may still become a special token. Encode each pre-token '
    "once, as the whole text cuts it: cutting settled text again on its own can cut it differently."
)


@dataclass(frozen=True)
class Failure:
    """The smallest text and chunking where encode_iterable is wrong, and what to tell the student."""

    text: str
    message: str


def chunkings(text: str) -> list[list[str]]:
    """The family, fewest chunks first, then earliest cuts first; one character per chunk last."""
    n = len(text)
    family = [[text]]
    family += [[text[:i], text[i:]] for i in range(n + 1)]
    if n <= PAIR_CUTS_UP_TO:
        family += [[text[:i], text[i:j], text[j:]] for i in range(1, n) for j in range(i + 1, n)]
    family.append(list(text))
    return family


def _encode_iterable(tok: StudentObject, chunks: list[str]) -> list[int]:
    return check_ids(list(tok.encode_iterable(chunks)), "encode_iterable(...)")


def _shown(vocab: dict[int, bytes], ids: list[int]) -> str:
    return "[" + ", ".join(repr(vocab[i]) if i in vocab else unknown_id(i) for i in ids) + "]"


def _differ(vocab: dict[int, bytes], expected: list[int], got: list[int]) -> list[str]:
    k = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))
    return [
        _("  encode gives           {ids}").format(ids=expected),
        f"                       = {_shown(vocab, expected)}",
        _("  encode_iterable gives  {ids}").format(ids=got),
        f"                       = {_shown(vocab, got)}",
        _("  the first difference is at position {position}.").format(position=k),
    ]


def first_failure(
    tok: StudentObject,
    vocab: dict[int, bytes],
    specials: list[str],
    text: str,
    expected: list[int],
    encode: Callable,
) -> Failure | None:
    """None when every chunking of `text` gives `expected` (encode's ids, already checked right);
    else the smallest failing chunking, with both ids."""
    family = chunkings(text)
    one_by_one, batched = family[-1:], family[:-1]  # one char per chunk: a stream of its own
    sep = specials[0] if specials else None
    if sep is None or not cuts_cleanly(text, sep, specials):
        one_by_one, batched = family, []
    if batched:
        sep_id = min(i for i, t in vocab.items() if t == sep.encode("utf-8"))
        for at in range(0, len(batched), STREAM_CHUNKINGS):
            group = batched[at : at + STREAM_CHUNKINGS]
            stream = [chunk for chunks in group for chunk in (*chunks, sep)]
            want = (expected + [sep_id]) * len(group)
            if _gives(tok, stream, want):
                continue
            found = _first_wrong(tok, group, expected)
            if found is not None:
                return _failure(vocab, text, *found)
            if encode("".join(stream)) != want:
                continue  # your encode does not cut at this special token either: not charged here
            if _encode_iterable(tok, stream) != want:  # an error it raised is raised again here
                return Failure(
                    text,
                    _(
                        "encode_iterable gives encode's ids for {text} however it is chunked, but not "
                        "when {count} chunkings of it follow each other in one stream, each followed "
                        "by the special token {special}."
                    ).format(text=repr(text), count=len(group), special=repr(sep))
                    + "\n"
                    + _(
                        "A special token ends every pre-token before it: nothing held back before it may "
                        "be yielded after it, or yielded twice."
                    ),
                )
    found = _first_wrong(tok, one_by_one, expected)
    return None if found is None else _failure(vocab, text, *found)


def _gives(tok: StudentObject, stream: list[str], want: list[int]) -> bool:
    try:
        return _encode_iterable(tok, stream) == want
    except Exception:  # a fault of its own shows again on the chunkings one by one
        return False


def _first_wrong(
    tok: StudentObject, family: list[list[str]], expected: list[int]
) -> tuple[list[str], list[int], list[int]] | None:
    for chunks in family:
        got = _encode_iterable(tok, chunks)
        if got != expected:
            return chunks, expected, got
    return None


def _failure(
    vocab: dict[int, bytes], text: str, chunks: list[str], expected: list[int], got: list[int]
) -> Failure:
    lines = [
        _(
            "{call} should give the ids of {joined}, the joined text (your encode gives the right ones):"
        ).format(call=f"encode_iterable({chunks!r})", joined=f"encode({text!r})"),
        *_differ(vocab, expected, got),
        _(HINT),
    ]
    return Failure(text, "\n".join(lines))


def judge(
    tok: StudentObject,
    vocab: dict[int, bytes],
    specials: list[str],
    texts: list[tuple[str, list[int]]],
    encode: Callable,
) -> tuple[Failure | None, list[str]]:
    """(the first failure, shortest text first, or None; the texts left unjudged because `encode`
    itself gives them wrong ids). Only texts whose encode is right are judged: a wrong encode is
    charged by the encode tests, not a second time here."""
    right = [(t, ids) for t, ids in texts if encode(t) == ids]
    unjudged = [t for t, ids in texts if (t, ids) not in right]
    for text, expected in sorted(right, key=lambda pair: len(pair[0])):
        problem = first_failure(tok, vocab, specials, text, expected, encode)
        if problem:
            return problem, unjudged
    return None, unjudged
