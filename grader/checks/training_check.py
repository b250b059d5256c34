"""One check for a golden training case, shared by the public and the hidden graded tests."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from grader.bpe_facts import golden
from grader.bpe_facts.pieces import reference_pretokenize
from grader.checks import diagnose
from grader.checks.diagnose import (
    PIECE_STAGES,
    Diagnosed,
    first_difference_in_pieces,
    first_difference_in_specials,
    student_pretokens,
)
from grader.checks.merge_fault import EOT_APART, learned, merge_fault, unescaped_cause, vocab_follows
from grader.checks.messages import diagnosed, explain_merges, explain_vocab
from grader.checks.shapes import check_train_result
from grader.errors import CallTimeout
from grader.i18n import N_, _

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

    from grader.checks.diagnose import Finding
    from grader.sandbox.kit import Bpe, StudentObject
    from grader.sandbox.remote_errors import RemoteError


def _shown(path: Path) -> str:
    """The corpus as the student finds it in their copy of the kit (data/fixtures/...)."""
    parts = path.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "data" and parts[i + 1] == "fixtures":
            return "/".join(parts[i:])
    return path.name


# Stand-ins for `special_tokens=[]` (the first that the corpus does not hold): see `_inputs`.
STAND_INS = ("<|endoftext|>", "<|pad|>", "<|stand-in|>")


def _inputs(
    case: golden.TrainCase, *, empty_list: bool
) -> tuple[list[str], int, dict[int, bytes], str | None]:
    """(special_tokens, vocab_size, expected vocab, the stand-in or None) to train the case with.

    `special_tokens=[]` is the concern of one test only (2.19). Every other test trains a case
    stored with no special token with one that its corpus does not hold, and one more id: the
    merges are the same (a special token that never occurs cuts nothing), the vocab is the stored
    one with the stand-in at id 256. So a trainer that cannot take `[]` loses that one test. Where
    the stand-in sits is not checked either (`_without`): that is the special tokens' tests' concern."""
    specials = list(case.special_tokens)
    if specials or empty_list:
        return specials, case.vocab_size, dict(case.vocab), None
    text = case.corpus_text()
    stand_in = next(s for s in STAND_INS if s not in text)
    vocab = {i: t for i, t in case.vocab.items() if i < 256} | {256: stand_in.encode("utf-8")}
    vocab |= {i + 1: t for i, t in case.vocab.items() if i >= 256}
    return [stand_in], case.vocab_size + 1, vocab, stand_in


def _without(vocab: dict, stand_in: str) -> dict:
    """The vocab without the stand-in (when it holds it once), the ids after it moved down by one."""
    raw = stand_in.encode("utf-8")
    at = [i for i, t in vocab.items() if t == raw]
    if len(at) != 1 or not all(isinstance(i, int) for i in vocab):
        return vocab
    return {(i - 1 if i > at[0] else i): t for i, t in vocab.items() if i != at[0]}


def relabelled(student: dict, expected: dict) -> dict:
    """The student's vocab with the `expected` (golden) ids, where CS336 lets ids differ (any id per
    token).

    Each of their tokens takes the golden id of the same bytes; a token the golden vocab lacks, or
    a second id for the same bytes, keeps an id past the golden ones, so the kit's vocab message
    still names what is missing or extra. `student` has passed check_train_result (int ids)."""
    by_bytes = {token: i for i, token in expected.items()}
    out, taken = {}, set()
    spare = max([*expected, *student], default=-1) + 1
    for i in sorted(student):
        token = student[i]
        j = by_bytes.get(token)
        if j is None or j in taken:
            j, spare = spare, spare + 1
        taken.add(j)
        out[j] = token
    return out


VOCAB_IDS = {
    "key": "vocab ids",
    "where": "train_bpe",
    "summary": N_("your vocab holds the right tokens at other ids"),  # translated when raised
    "one_fault": True,
}


def check_training_case(bpe: Bpe, visibility: str, name: str, *, empty_list: bool = False) -> None:
    """Train on the case's corpus through the `bpe` fixture; compare merges, then vocab, exactly.

    `empty_list`: pass a case stored with no special token as `special_tokens=[]`, as stored;
    otherwise with a stand-in that its corpus does not hold (see `_inputs`)."""
    case = golden.TrainCase(golden.root(visibility), name)
    specials, vocab_size, expected_vocab, stand_in = _inputs(case, empty_list=empty_list)
    call = f"train_bpe('{_shown(case.corpus_path)}', vocab_size={vocab_size}, special_tokens={specials!r})"
    from grader.sandbox.remote_errors import RemoteError

    try:
        vocab, merges = check_train_result(bpe.train_bpe(case.corpus_path, vocab_size, list(specials)))
    except RemoteError as crash:  # the student's exception: its own cause, unless proven the split's
        _crash_from_unescaped(bpe, case, specials, vocab_size, call, crash)
        raise
    trained_cpu = bpe.kit.last_call.cpu_s
    if merges != case.merges or vocab != expected_vocab:
        limit = vocab_size - 256 - len(dict.fromkeys(specials))
        check_stages_before_merging(
            bpe, case.corpus_text(), specials, expected_vocab, vocab, call, merges, limit
        )
    problem = explain_merges(case.diagnostics(), case.merges, merges, no_specials=not specials)
    if problem:
        train = _asked_again(bpe, specials, trained_cpu)
        contract = getattr(bpe.kit, "contract", "kit")
        fault = merge_fault(bpe.kit.oracles, case, specials, merges, vocab, contract, train)
        if fault is not None and fault["key"] == EOT_APART:  # a cut, not ties: no list of tied pairs
            problem = explain_merges(
                case.diagnostics(), case.merges, merges, at_step=False, no_specials=not specials
            )
        message = _("{call} ({about}):").format(call=call, about=_(case.about)) + "\n" + problem
        if fault is None:
            raise AssertionError(message)
        hint = fault.pop("hint", None)
        if hint:
            message += (
                "\n" + _("Likely cause: {summary}.").format(summary=fault["summary"]) + "\n  " + _(hint)
            )
        raise Diagnosed(message, fault)
    if getattr(bpe.kit, "contract", "kit") == "cs336":  # any id per token (`relabelled`)
        vocab = relabelled(vocab, expected_vocab)
    if stand_in is not None:
        vocab, expected_vocab, specials = _without(vocab, stand_in), dict(case.vocab), []
    problem = explain_vocab(expected_vocab, vocab, len(dict.fromkeys(specials)))
    if problem:
        message = _("{call}: the merges are right but the vocab is not.").format(call=call) + "\n" + problem
        if sorted(vocab.values()) == sorted(expected_vocab.values()):  # only the ids differ
            summary = VOCAB_IDS["summary"]
            raise Diagnosed(message, dict(VOCAB_IDS, summary=_(summary)))
        raise AssertionError(message)


RESPELLED = N_(
    "Given the same special tokens spelled in characters that mean nothing to a regex, your "
    "train_bpe makes exactly the right merges: its failure here comes from the unescaped special "
    "tokens alone."
)


def _crash_from_unescaped(
    bpe: Bpe, case: golden.TrainCase, specials: list[str], vocab_size: int, call: str, crash: RemoteError
) -> None:
    """Raise the unescaped special tokens' cause, proven the only fault, for a crash of train_bpe
    when the trainer, given the corpus with the special tokens respelled (`diagnose.respelling`: no
    character of theirs means anything to a regex), makes exactly the right merges, and the split
    on the corpus is either right (the trainer's own regex: the stored mistake's key) or exactly
    the one of the special tokens joined into a regex without escaping (the split's key)."""
    if bpe.kit.oracles is None or not specials:
        return
    text = case.corpus_text()
    found = first_difference_in_pieces(bpe, text, specials)
    if found is not None and (
        found.stage != "split_on_special_tokens" or diagnose.unescaped_cut(text, specials, found.got) is None
    ):
        return
    respell = diagnose.respelling(specials, text)
    if respell is None:
        return
    ask = _asked_again(bpe, [respell[s] for s in specials], diagnose.CALL_CPU_S)
    with tempfile.TemporaryDirectory(prefix="bpe-kit-respelled-") as folder:
        path = Path(folder) / "respelled.txt"
        path.write_bytes(diagnose.respelled_text(text, specials, respell).encode("utf-8"))
        try:
            merges = ask(path, vocab_size)
        except Exception:  # a crash or a wrong shape here proves nothing: the test's own failure stands
            return
    if merges != case.merges:
        return
    said = _("{call} raised {error}: {message}").format(call=call, error=crash.remote_type, message=crash)
    if found is not None:
        failure = diagnosed(found, said + "\n" + _(RESPELLED), "train_bpe")
        failure.cause["one_fault"] = True
        raise failure from None
    cause = unescaped_cause()
    hint = cause.pop("hint")
    likely = _("Likely cause: {summary}.").format(summary=cause["summary"]) + "\n  " + _(hint)
    raise Diagnosed(said + "\n" + likely + "\n" + _(RESPELLED), cause) from None


PROBE_CPU_FACTOR = 8  # the probe trains on the text four times, for fewer merges: a few times the call


def trains_case_wrong(bpe: Bpe, visibility: str, name: str) -> bool:
    """True when train_bpe, called as `check_training_case` calls it, gives other merges or another
    vocab than the case stores, or fails: that test fails, and charges it. A call stopped by a
    limit proves nothing (False)."""
    from grader.errors import GradingAbort

    case = golden.TrainCase(golden.root(visibility), name)
    specials, vocab_size, expected_vocab, _stand_in = _inputs(case, empty_list=False)
    try:
        vocab, merges = check_train_result(bpe.train_bpe(case.corpus_path, vocab_size, list(specials)))
    except GradingAbort:
        return False
    except (Exception, AssertionError):
        return True
    return merges != case.merges or vocab != expected_vocab


def _asked_again(bpe: Bpe, specials: list[str], trained_cpu: float):
    """The student's trainer as grader/checks/tie_probe.py asks it: (path, vocab_size) -> merges,
    bounded by a few times the test's own training call; a call stopped there is not an answer."""
    cpu = max(diagnose.CALL_CPU_S, PROBE_CPU_FACTOR * trained_cpu)

    def ask(path: Path, vocab_size: int) -> list:
        try:
            with bpe.kit.timeout(diagnose.CALL_WALL_S + PROBE_CPU_FACTOR * cpu, cpu=cpu):
                return check_train_result(bpe.train_bpe(path, vocab_size, list(specials)))[1]
        except CallTimeout:
            return []

    return ask


def check_stages_before_merging(
    bpe: Bpe,
    text: str,
    special_tokens: list[str],
    expected_vocab: dict[int, bytes],
    vocab: object,
    call: str,
    merges: list | None = None,
    limit: int = 0,
) -> None:
    """Raise the diagnosed cause when training went wrong before any merge: the special tokens in
    the vocab (each once), the special-token split or pretokenize on the corpus itself. A wrong
    split or pretokenize is proven the only fault (`one_fault`) when a correct trainer, given the
    pre-tokens the submission's own functions make, learns exactly its `merges` (asked of the
    trusted trainer, `bpe.kit.oracles`, where the kit has it)."""
    found = first_difference_in_specials(expected_vocab, vocab, special_tokens, "train_bpe")
    found = found or first_difference_in_pieces(bpe, text, special_tokens)
    if found is None:
        return
    failure = diagnosed(found, _("(found while checking {call})").format(call=call), "train_bpe")
    oracles = bpe.kit.oracles
    if found.stage in PIECE_STAGES and merges is not None and oracles is not None:
        counts = (
            student_pretokens(bpe, text, special_tokens)
            if vocab_follows(oracles, vocab, special_tokens, merges)
            else None
        )
        if (counts is not None and merges == learned(oracles, counts, limit)) or _unescaped_alone(
            oracles, found, vocab, special_tokens, merges, limit
        ):
            failure.cause["one_fault"] = True
    raise failure


def _unescaped_alone(
    oracles: ModuleType,
    found: Finding,
    vocab: StudentObject,
    special_tokens: list[str],
    merges: StudentObject,
    limit: int,
) -> bool:
    """Are `merges` what a correct trainer learns from the corpus cut by the special tokens joined
    into a regex without escaping, that regex's matches dropped (a trainer that splits on the same
    regex), while the split the finding shows is that regex's? Then the unescaped special tokens
    alone make both: one fault."""
    if found.stage != "split_on_special_tokens" or not vocab_follows(oracles, vocab, special_tokens, merges):
        return False
    text, specials = found.given
    cut = diagnose.unescaped_cut(text, specials, found.got)
    if cut is None:
        return False
    counts = Counter(
        w.encode("utf-8", "surrogatepass")
        for piece, matched in cut
        if not matched
        for w in reference_pretokenize(piece)
    )
    return merges == learned(oracles, counts, limit)
