"""Checks for encoding against golden ids, shared by the public and the hidden graded tests."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grader.bpe_facts import golden
from grader.bpe_facts.pieces import reference_pretokenize, reference_split
from grader.checks import appended
from grader.checks.batched import encoded_apart
from grader.checks.diagnose import (
    PIECE_STAGES,
    Diagnosed,
    case_blind_cut,
    first_difference_in_tokenizer,
    first_difference_in_tokenizer_vocab,
    student_cut,
)
from grader.checks.messages import diagnosed
from grader.checks.shapes import check_ids
from grader.i18n import N_, _
from grader.terms import Cause

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from types import ModuleType

    from grader.checks.diagnose import Finding
    from grader.sandbox.kit import Bpe, StudentObject


@dataclass
class TokenizerFacts:
    """What a correct tokenizer built from (vocab, merges, special_tokens) holds: enough to explain ids."""

    vocab: dict[int, bytes]
    special_tokens: list[str]
    merges: list | None = None  # to prove a fault before merging the only one (`pieces_explain`)

    @classmethod
    def of(
        cls, vocab: dict[int, bytes], special_tokens: Iterable[str] | None = None, merges: list | None = None
    ) -> TokenizerFacts:
        specials = list(dict.fromkeys(special_tokens or []))
        return cls(golden.with_specials(vocab, specials), specials, merges)

    def id_of(self, token: bytes) -> int:
        return min(i for i, t in self.vocab.items() if t == token)


def with_tokenizer(bpe: Bpe, visibility: str, name: str, body: Callable) -> None:
    """`body(make, case, facts)`: a test's checks on the golden case's tokenizer (`make()` builds
    one), with the facts of a correct tokenizer from the same vocab. A failure that the special
    tokens missing from the case's vocab alone explain is proven so (grader/checks/appended.py)."""
    case = golden.EncodeCase(golden.root(visibility), name)
    facts = TokenizerFacts.of(case.train.vocab, case.special_tokens, case.train.merges)

    def make(vocab: dict):
        return bpe.BPETokenizer(dict(vocab), list(case.train.merges), list(case.special_tokens))

    def run(vocab: dict) -> None:
        body(lambda: make(vocab), case, facts)

    appended.graded(case.train.vocab, case.special_tokens, make, run)


def pieces_explain(bpe: Bpe, facts: TokenizerFacts, text: str, got: list[int]) -> bool:
    """True when `got` is exactly what a correct encoder gives on the pre-tokens the submission's
    own split_on_special_tokens and pretokenize make of `text`: then a fault in those functions is
    the only fault of these ids (`one_fault`, grader/charges.py). Only with the trusted encoder
    (`bpe.kit.oracles`)."""
    oracles = bpe.kit.oracles
    if facts.merges is None or oracles is None:
        return False
    cut = student_cut(bpe, text, facts.special_tokens)
    if cut is None:
        return False
    encoder = oracles.TrustedEncoder(facts.vocab, facts.merges, facts.special_tokens)
    try:
        return [i for word, special in cut for i in encoder.ids_of(word, special)] == got
    except KeyError:  # a byte or a special token the vocab does not hold: not a correct encoding
        return False


def diagnosed_pieces(
    bpe: Bpe, facts: TokenizerFacts, finding: Finding, text: str, got: list[int], message: str, exercised: str
) -> Diagnosed:
    """The failure to raise for a diagnosed stage of `text`, proven the only fault when it is."""
    failure = diagnosed(finding, message, exercised)
    if finding.stage in PIECE_STAGES and (
        pieces_explain(bpe, facts, text, got)
        or (
            finding.stage == "split_on_special_tokens"
            and case_blind_explains(bpe.kit.oracles, facts, text, got)
        )
    ):
        failure.cause["one_fault"] = True
    return failure


def case_blind_explains(oracles: ModuleType | None, facts: TokenizerFacts, text: str, got: list[int]) -> bool:
    """True when `got` is exactly what a correct encoder gives on `text` cut at the special tokens
    matched in any case ('<|ENDOFTEXT|>' as the id of '<|endoftext|>'): then matching them in any
    case, a fault of the split (`case_blind_finding`), is the only fault of these ids. A piece
    that a split cuts out is not known from its list of pieces alone, so this is proven apart. Only
    with the trusted encoder (`oracles`: `bpe.kit.oracles`)."""
    if facts.merges is None or oracles is None:
        return False
    cut = case_blind_cut(text, facts.special_tokens)
    if all(special is None or piece == special for piece, special in cut):
        return False
    encoder = oracles.TrustedEncoder(facts.vocab, facts.merges, facts.special_tokens)
    ids: list[int] = []
    try:
        for piece, special in cut:
            if special is not None:
                ids += encoder.ids_of(special, special=True)
            else:
                ids += [i for word in reference_pretokenize(piece) for i in encoder.ids_of(word)]
    except KeyError:  # a byte the vocab does not hold: not a correct encoding
        return False
    return ids == got


def _tokens(vocab: dict[int, bytes], ids: list[int]) -> str:
    return "[" + ", ".join(repr(vocab[i]) if i in vocab else unknown_id(i) for i in ids) + "]"


def unknown_id(i: int) -> str:
    return _("<unknown id {id}>").format(id=i)


def explain_ids(
    facts: TokenizerFacts, text: str, expected: list[int], got: list[int], *, hint: bool = True
) -> str | None:
    """None when equal; else the ids, as tokens, and where they first differ. The `hint` about merging
    is only right once the earlier stages agree (see `explain_encode`)."""
    if got == expected:
        return None
    vocab = facts.vocab
    lines = [
        _("{call} is wrong.").format(call=f"encode({text!r})"),
        _("  expected {ids}").format(ids=expected),
        f"         = {_tokens(vocab, expected)}",
        _("  got      {ids}").format(ids=got),
        f"         = {_tokens(vocab, got)}",
    ]
    k = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))
    lines.append(_("  the first difference is at position {position}.").format(position=k))
    if not hint:
        return "\n".join(lines)
    same_bytes = all(i in vocab for i in got) and b"".join(vocab[i] for i in got) == text.encode("utf-8")
    specials = [s for s in facts.special_tokens if s in text]
    if specials and any(facts.id_of(s.encode("utf-8")) not in got for s in specials):
        lines.append(
            _(
                "Hint: each special token must become its single id; when special tokens overlap, "
                "the longest one wins."
            )
        )
    elif same_bytes:
        lines.append(
            _(
                "Hint: your tokens spell the right bytes but are split differently. Inside each "
                "pre-token, repeatedly merge the pair with the LOWEST merge rank (the earliest "
                "learned merge) until no learned pair is left."
            )
        )
    elif all(i in vocab for i in got):
        lines.append(
            _("Hint: your tokens spell {spelled}, which is not the text's UTF-8 bytes {text}.").format(
                spelled=repr(b"".join(vocab[i] for i in got)), text=repr(text.encode("utf-8"))
            )
        )
    return "\n".join(lines)


ENCODE_ORDER: Cause = {
    "key": "encode merge order",
    "where": "encode",
    "summary": N_("your encode merges pairs in another order than their rank"),  # translated when raised
    "one_fault": True,
}


def merged_in_another_order(facts: TokenizerFacts, text: str, got: list[int]) -> bool:
    """True when `got` is a complete merging of every pre-token of `text`, in some other order
    than by rank: each special token is its one id, every other token lies inside one pre-token
    and spells it, and no two neighbours inside a pre-token form a learned merge (merging went on
    to the end). Then the order of merging is the only fault of these ids (`one_fault`); ids that
    stop early, cross pre-tokens or lose text are not this fault."""
    if facts.merges is None:
        return False
    merges = set(facts.merges)
    specials = set(facts.special_tokens)
    tokens = iter(got)
    for piece in reference_split(text, facts.special_tokens):
        words = [piece] if piece in specials else reference_pretokenize(piece)
        for word in words:
            if piece in specials:
                if next(tokens, None) != facts.id_of(word.encode("utf-8")):
                    return False
                continue
            made = _spelling(facts.vocab, tokens, word.encode("utf-8"))
            if made is None or any(pair in merges for pair in itertools.pairwise(made)):
                return False
    return next(tokens, None) is None


def _spelling(vocab: dict[int, bytes], tokens: Iterator[int], raw: bytes) -> list[bytes] | None:
    """The tokens taken next from the iterator `tokens` that spell `raw` exactly; None when they
    do not."""
    made: list[bytes] = []
    while b"".join(made) != raw:
        token = vocab.get(next(tokens, None))
        if token is None or not raw.startswith(b"".join(made) + token):
            return None
        made.append(token)
    return made


SPECIALS_SPELLED_OUT: Cause = {
    "key": "encode spells out special tokens",
    "where": "encode",
    "summary": N_("your encode does not keep special tokens whole"),  # translated when raised
    "one_fault": True,
}


def specials_spelled_out(
    oracles: ModuleType | None, facts: TokenizerFacts, text: str, got: list[int]
) -> bool:
    """True when the special tokens of `text` are its ids' only fault: each is spelled out in
    ordinary tokens (merged as one word, or as text among the others), and everything else is
    encoded right. Then this one fault explains these ids (`one_fault`). Only with the trusted
    encoder (`oracles`: `bpe.kit.oracles`)."""
    if facts.merges is None or oracles is None:
        return False
    pieces = reference_split(text, facts.special_tokens)
    specials = set(facts.special_tokens)
    if not any(p in specials and got.count(facts.id_of(p.encode("utf-8"))) == 0 for p in pieces):
        return False
    encoder = oracles.TrustedEncoder(facts.vocab, facts.merges, facts.special_tokens)
    as_text = oracles.TrustedEncoder(facts.vocab, facts.merges, []).encode(text)
    return got == as_text or _spelled_piece_by_piece(facts, encoder, pieces, got)


def _spelled_piece_by_piece(facts: TokenizerFacts, encoder: Any, pieces: list[str], got: list[int]) -> bool:
    """Each ordinary piece's ids as a right encoder gives them; each special token, any tokens that
    spell its bytes."""
    tokens = iter(got)
    for piece in pieces:
        if piece in facts.special_tokens:
            if _spelling(facts.vocab, tokens, piece.encode("utf-8")) is None:
                return False
            continue
        want = [i for word in reference_pretokenize(piece) for i in encoder.ids_of(word)]
        if [next(tokens, None) for _ in want] != want:
            return False
    return next(tokens, None) is None


def check_encoded(
    bpe: Bpe,
    tok: StudentObject,
    facts: TokenizerFacts,
    text: str,
    expected: list[int],
    got: list[int],
    *,
    intro: str = "",
    exercised: str = "encode",
    outro: str = "",
) -> None:
    """Fail when `got` (the ids `tok` gave for `text`) is not `expected`. The earliest stage that
    differs on this text (special-token split, pretokenize, the tokenizer's vocab) is named first,
    as the diagnosed cause; only when they all agree does the hint speak of merging."""
    if got == expected:
        return
    finding = first_difference_in_tokenizer(bpe, tok, text, facts.special_tokens, facts.vocab)
    if finding is not None:
        message = intro + explain_ids(facts, text, expected, got, hint=False)
        raise diagnosed_pieces(bpe, facts, finding, text, got, message, exercised)
    message = intro + explain_ids(facts, text, expected, got) + outro
    if merged_in_another_order(facts, text, got):
        summary = ENCODE_ORDER["summary"]
        raise Diagnosed(message, dict(ENCODE_ORDER, summary=_(summary)))
    if specials_spelled_out(bpe.kit.oracles, facts, text, got):
        summary = SPECIALS_SPELLED_OUT["summary"]
        raise Diagnosed(message, dict(SPECIALS_SPELLED_OUT, summary=_(summary)))
    raise AssertionError(message)


def in_few_calls(
    tok: StudentObject, facts: TokenizerFacts, pairs: list[tuple[str, list[int]]]
) -> Iterator[tuple[str, list[int], list[int]]]:
    """(text, expected ids, `tok.encode(text)`) for each text to judge on its own, the others
    proven right in joined calls (grader/checks/batched.py)."""
    sep_id = facts.id_of(facts.special_tokens[0].encode("utf-8")) if facts.special_tokens else None
    return encoded_apart(
        pairs, facts.special_tokens, sep_id, lambda t: check_ids(tok.encode(t), f"encode({t!r})")
    )


def check_encode_case(bpe: Bpe, visibility: str, name: str, intro: str = "") -> None:
    """Encode every text of the case (stored shortest first) and explain the first wrong one; texts
    go in few calls (grader/checks/batched.py), so a slow call costs no correctness test."""

    def body(make: Callable[[], StudentObject], case: golden.EncodeCase, facts: TokenizerFacts):
        tok = make()
        for text, expected, got in in_few_calls(tok, facts, case.texts):
            check_encoded(bpe, tok, facts, text, expected, got, intro=intro)

    with_tokenizer(bpe, visibility, name, body)


@contextlib.contextmanager
def tokenizer_first(bpe: Bpe, tok: StudentObject, facts: TokenizerFacts, exercised: str) -> Iterator[None]:
    """A failure inside is blamed on the tokenizer's vocab when that already differs: a student is
    never sent to fix `save` (`exercised`) for a fault in `BPETokenizer.__init__`."""
    try:
        yield
    except Diagnosed:
        raise
    except AssertionError as failure:
        found = first_difference_in_tokenizer_vocab(bpe, tok, facts.special_tokens, facts.vocab)
        if found is None:
            raise
        raise diagnosed(found, str(failure), exercised) from None
