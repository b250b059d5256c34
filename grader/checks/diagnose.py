"""Which stage of a submission first differs from the contract, on a test's own input.

Ids or merges can go wrong at four stages, in this order: cutting out the special tokens
(`split_on_special_tokens`), pre-tokenizing each piece (`pretokenize`), the vocab's layout (bytes
0-255, then each special token once, then one id per merge), and only then merging. A hint about a
later stage is wrong when an earlier stage already differs, so a failure names the EARLIEST stage
that differs. `first_difference_*` return it as data (a `Finding`); `grader.checks.messages` words
it, and its `cause` (the fault, not the test) travels with the failure (`Diagnosed`), so that one
fault is named once across tests (grader/report.py: "same cause as 3.2").
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from grader.bpe_facts.pieces import reference_pretokenize, reference_split
from grader.errors import CallTimeout
from grader.terms import Cause

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from grader.sandbox.kit import Bpe, StudentObject

PIECE_STAGES = ("split_on_special_tokens", "pretokenize")  # the stages that cut the text
MAX_PIECES = 40  # a long corpus is diagnosed on its first pieces: enough to meet any systematic fault
MAX_PIECE_CHARS = 4000
CALL_WALL_S, CALL_CPU_S = 20.0, 5.0  # a diagnosis never costs a test its time: a stuck call ends it


@dataclass(frozen=True)
class Finding:
    """The first stage that differs. `stage` is the fault's key (the same fault, the same key, in
    every test); `where` is the function to fix; `given`, `expected`, `got` show it on one input."""

    stage: str  # "split_on_special_tokens" | "pretokenize" | "special_missing" | "special_twice" | "vocab_layout"
    where: str
    given: object
    expected: object
    got: object

    def cause(self) -> Cause:
        """The fault as data. A special token missing from train_bpe's vocab is another fault than
        one missing from a tokenizer's: the stage alone would make them one cause."""
        key = self.stage if self.where != "train_bpe" else f"{self.stage} in train_bpe"
        return {"key": key, "where": self.where}


class Diagnosed(AssertionError):
    """A failed check whose cause was diagnosed: `cause` is data, read by grader/suite/outcome.py."""

    def __init__(self, message: str, cause: dict) -> None:
        super().__init__(message)
        self.cause = cause


def _call(function: Callable, *args):
    """The submission's answer, or None when it cannot give one (a stub, an error): such a stage is
    not diagnosed here, its own test reports it. A call that does not end stops the diagnosis."""
    try:
        return function(*args)
    except CallTimeout:
        raise
    except Exception:
        return None


@contextlib.contextmanager
def _bounded(bpe: Bpe):
    try:
        with bpe.kit.timeout(CALL_WALL_S, cpu=CALL_CPU_S):
            yield
    except CallTimeout:
        pass


def _smallest_pretokenize_difference(bpe: Bpe, piece: str, expected: list[str], got: object) -> Finding:
    """Narrow a long piece to the few pre-tokens around the first difference, when that still differs."""
    got_list = got if isinstance(got, list) else []
    k = next(
        (i for i, (e, g) in enumerate(zip(expected, got_list)) if e != g), min(len(expected), len(got_list))
    )
    for width in (1, 2, 3, 5):
        window = "".join(expected[max(0, k - width + 1) : k + width])
        if window and window != piece:
            small_expected = reference_pretokenize(window)
            small_got = _call(bpe.pretokenize, window)
            if small_got is not None and small_got != small_expected:
                return Finding("pretokenize", "pretokenize", window, small_expected, small_got)
    return Finding("pretokenize", "pretokenize", piece, expected, got)


def first_difference_in_pieces(bpe: Bpe, text: str, special_tokens: Iterable[str] | None) -> Finding | None:
    """Does the submission's split_on_special_tokens, then its pretokenize, agree with the contract
    on `text`? None when both agree (or cannot be asked: the CS336 contract has neither function)."""
    if getattr(bpe.kit, "contract", "kit") == "cs336":
        return None
    found = None
    with _bounded(bpe):
        found = _pieces(bpe, text, special_tokens)
    return found


def _pieces(bpe: Bpe, text: str, special_tokens: Iterable[str] | None) -> Finding | None:
    specials = list(dict.fromkeys(special_tokens or []))
    expected = reference_split(text, specials)
    if specials:
        got = _call(bpe.split_on_special_tokens, text, specials)
        if got is not None and got != expected:
            return Finding(
                "split_on_special_tokens", "split_on_special_tokens", (text, specials), expected, got
            )
        found = case_blind_finding(bpe, text, specials)
        if found is not None:
            return found
    plain = [p for p in expected if p not in specials][:MAX_PIECES]
    for piece in plain:
        piece = piece[:MAX_PIECE_CHARS]
        want = reference_pretokenize(piece)
        got = _call(bpe.pretokenize, piece)
        if got is not None and got != want:
            return _smallest_pretokenize_difference(bpe, piece, want, got)
    return None


def unescaped_cut(
    text: str, special_tokens: Iterable[str] | None, got: StudentObject
) -> list[tuple[str, bool]] | None:
    """`text` cut by the special tokens joined into one regex WITHOUT escaping them (longest first,
    or in the order given), as (piece, matched by that regex), when the pieces are exactly `got`:
    a split_on_special_tokens that makes `got` (empty pieces aside: that regex may match nothing)
    has that one fault (the '|' of '<|endoftext|>' means 'or'), and its matches are what a trainer
    built on the same regex drops. None otherwise."""
    specials = list(dict.fromkeys(special_tokens or []))
    if not specials or not isinstance(got, list):
        return None
    for order in (sorted(specials, key=len, reverse=True), specials):
        try:
            pattern = regex.compile("|".join(order))
        except regex.error:
            return None
        cut: list[tuple[str, bool]] = []
        start = 0
        for m in pattern.finditer(text):
            if m.start() > start:
                cut.append((text[start : m.start()], False))
            if m.group():
                cut.append((m.group(), True))
            start = m.end()
        if start < len(text):
            cut.append((text[start:], False))
        if [piece for piece, _ in cut] == [piece for piece in got if piece != ""]:
            return cut
    return None


RESPELL_FROM = 0xE000  # the Private Use Area: no character of it means anything to a regex


def respelling(special_tokens: Iterable[str] | None, text: str) -> dict[str, str] | None:
    """Each special token spelled in characters that mean nothing to a regex: one Private Use Area
    character per distinct character of the special tokens, in the same places, so they cut
    `text` at the same places and overlap as before. None when `text` holds one of those."""
    specials = list(dict.fromkeys(special_tokens or []))
    table = {c: chr(RESPELL_FROM + k) for k, c in enumerate(sorted({c for s in specials for c in s}))}
    if any(c in text for c in table.values()):
        return None
    return {s: "".join(table[c] for c in s) for s in specials}


def respelled_text(text: str, special_tokens: Iterable[str] | None, respell: dict[str, str]) -> str:
    """`text` with each special token it holds (cut as the contract cuts) spelled as `respell` says."""
    return "".join(respell.get(piece, piece) for piece in reference_split(text, special_tokens))


def case_blind_cut(text: str, special_tokens: Iterable[str] | None) -> list[tuple[str, str | None]]:
    """`text` cut at the special tokens matched IGNORING CASE, longest first, as (piece, the
    special token it matches, or None for the text between): what a split_on_special_tokens that
    matches in any case cuts out."""
    specials = sorted(dict.fromkeys(special_tokens or []), key=len, reverse=True)
    if not specials:
        return [(text, None)] if text else []
    pattern = regex.compile("|".join(regex.escape(s) for s in specials), regex.IGNORECASE)
    cut: list[tuple[str, str | None]] = []
    start = 0
    for m in pattern.finditer(text):
        if m.start() > start:
            cut.append((text[start : m.start()], None))
        match = m.group()
        cut.append((match, next(s for s in specials if regex.fullmatch(regex.escape(s), match, regex.I))))
        start = m.end()
    if start < len(text):
        cut.append((text[start:], None))
    return cut


def case_blind_finding(bpe: Bpe, text: str, special_tokens: Iterable[str] | None) -> Finding | None:
    """The split stage's fault on a piece of `text` that is a special token in another case only
    ('<|ENDOFTEXT|>'), when the submission's split_on_special_tokens cuts that piece out from
    between two other characters (the contract keeps it as text): a fault the pieces of `text`
    alone may not show (a text that is that piece and nothing else is one piece either way)."""
    specials = list(dict.fromkeys(special_tokens or []))
    variant = next((p for p, s in case_blind_cut(text, specials) if s is not None and p != s), None)
    edge = next((c for c in " \n#" if not any(c in s.casefold() for s in specials)), None)
    if variant is None or edge is None:
        return None
    given = edge + variant + edge
    got = _call(bpe.split_on_special_tokens, given, specials)
    if got != [edge, variant, edge]:
        return None
    return Finding("split_on_special_tokens", "split_on_special_tokens", (given, specials), [given], got)


def student_pretokens(bpe: Bpe, text: str, special_tokens: Iterable[str] | None) -> Counter | None:
    """How often each pre-token (as bytes) occurs in `text` cut by the submission's own
    split_on_special_tokens and pretokenize: what its trainer saw. None when they cannot all be
    asked (a stub, an error, a call that does not end, the CS336 contract)."""
    if getattr(bpe.kit, "contract", "kit") == "cs336":
        return None
    counts: Counter | None = None
    with _bounded(bpe):
        counts = _student_pretokens(bpe, text, list(dict.fromkeys(special_tokens or [])))
    return counts


def _student_pretokens(bpe: Bpe, text: str, specials: list[str]) -> Counter | None:
    cut = _student_cut(bpe, text, specials)
    if cut is None:
        return None
    return Counter(w.encode("utf-8", "surrogatepass") for w, special in cut if not special)


def student_cut(bpe: Bpe, text: str, special_tokens: Iterable[str] | None) -> list[tuple[str, bool]] | None:
    """`text` as the submission's own functions cut it: (pre-token or special token, is special),
    in order. None when they cannot all be asked (see `student_pretokens`)."""
    if getattr(bpe.kit, "contract", "kit") == "cs336":
        return None
    cut = None
    with _bounded(bpe):
        cut = _student_cut(bpe, text, list(dict.fromkeys(special_tokens or [])))
    return cut


def _student_cut(bpe: Bpe, text: str, specials: list[str]) -> list[tuple[str, bool]] | None:
    pieces = _call(bpe.split_on_special_tokens, text, specials) if specials else [text]
    if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces):
        return None
    out: list[tuple[str, bool]] = []
    for piece in pieces:
        if piece in specials:
            out.append((piece, True))
            continue
        words = _call(bpe.pretokenize, piece)
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            return None
        out.extend((w, False) for w in words)
    return out


def first_difference_in_specials(
    expected: dict, got: object, special_tokens: Iterable[str] | None, where: str
) -> Finding | None:
    """Each special token in the vocab once: never missing, never twice."""
    if not isinstance(got, dict):
        return None
    for special in dict.fromkeys(special_tokens or []):
        raw = special.encode("utf-8")
        ids = sorted(i for i, token in got.items() if token == raw)
        if not ids:
            want = min((i for i, t in expected.items() if t == raw), default=None)
            return Finding("special_missing", where, special, want, None)
        if len(ids) > 1:
            return Finding("special_twice", where, special, ids[:1], ids)
    return None


def first_difference_in_vocab(
    expected: dict, got: object, special_tokens: Iterable[str] | None, where: str
) -> Finding | None:
    """The vocab's layout: each special token once, then every id as expected."""
    found = first_difference_in_specials(expected, got, special_tokens, where)
    if found or not isinstance(got, dict):
        return found
    if got != expected:
        wrong = sorted(
            (i for i in set(expected) | set(got) if expected.get(i) != got.get(i)),
            key=lambda i: (not isinstance(i, int), i if isinstance(i, int) else 0, repr(i)),
        )
        first = wrong[0]
        return Finding("vocab_layout", where, first, expected.get(first), got.get(first))
    return None


def first_difference_in_tokenizer(
    bpe: Bpe, tok: StudentObject, text: str, special_tokens: Iterable[str] | None, expected_vocab: dict
) -> Finding | None:
    """The stages before merging, for `tok.encode(text)`: the pieces, then the tokenizer's vocab."""
    found = first_difference_in_pieces(bpe, text, special_tokens)
    return found or first_difference_in_tokenizer_vocab(bpe, tok, special_tokens, expected_vocab)


def first_difference_in_tokenizer_vocab(
    bpe: Bpe, tok: StudentObject, special_tokens: Iterable[str] | None, expected_vocab: dict
) -> Finding | None:
    """The vocab `tok` holds against the expected one. The CS336 contract allows any ids for the
    special tokens it appends: there, only their presence (once each) is checked."""
    vocab = vocab_of(bpe, tok)
    if getattr(bpe.kit, "contract", "kit") == "cs336":
        return first_difference_in_specials(expected_vocab, vocab, special_tokens, "BPETokenizer.__init__")
    return first_difference_in_vocab(expected_vocab, vocab, special_tokens, "BPETokenizer.__init__")


def vocab_of(bpe: Bpe, tok: StudentObject) -> object:
    """The tokenizer's vocab, or None when it cannot be read."""
    vocab = None
    with _bounded(bpe):
        vocab = _call(lambda: tok.vocab)
    return vocab
