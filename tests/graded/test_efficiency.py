"""Efficiency gates: training speed, encoding speed, and streaming memory.

Budgets are never a fixed number of seconds: their rules are grader/budgets.py, what they multiply is
measured by grader/calibration.py. Each gate also checks that
the fast answer is a right answer, against expected results stored in data/fixtures/public/speed/.

PYTEST_DONT_REWRITE: every check carries its own message, written for students.
"""

from __future__ import annotations

import contextlib

import pytest

from data.corpus import EOT
from grader import calibration
from grader.bpe_facts import golden
from grader.bpe_facts.golden import first_difference
from grader.bpe_facts.pieces import reference_pretokenize, reference_split
from grader.budgets import ENCODE_TEXT, TRAIN_VOCAB_SIZE
from grader.checks.diagnose import (
    Diagnosed,
    first_difference_in_pieces,
    respelled_text,
    respelling,
    unescaped_cut,
)
from grader.checks.merge_fault import TIE_BREAK, first_merges_fault, merge_count_fault, vocab_follows
from grader.checks.messages import diagnosed, explain_merges
from grader.checks.shapes import check_ids, check_train_result
from grader.checks.speed import WALL_FACTOR, memory_figures, timed_call, verdict
from grader.checks.training_check import trains_case_wrong
from grader.i18n import N_, _
from grader.terms import Cause

TRAIN_HINT = N_(
    "Hint: do not recount every pair after every merge. Count the distinct pre-tokens once, "
    "keep the pair counts, and after a merge update only the counts of pairs next to it "
    "(and only in the words that contain the merged pair)."
)
ENCODE_HINT = N_(
    "Hint: do not replay every merge over the whole text. Pre-tokenize, then merge each "
    "pre-token by rank (lowest first), and cache the ids of pre-tokens you have already seen."
)
MEMORY_LIMIT_PER_FILE_BYTE = 3  # the reference streams it in ~1x the file (its cache); reading it whole ~7x
# The memory gate grades memory, never speed (E.2 does): a slow but right encoder must finish its
# file. So its CPU limit follows the encoder's own pace, timed on the file's first SAMPLE_CHARS: the
# whole file may take PACE_FACTOR x what that pace predicts (work that grows with the text read so
# far, a streaming fault, is stopped), never less than STREAM_TIME_ALLOWANCE x the encode gate's stop
# per MB, never more than STREAM_MAX_BUDGETS x the encode gate's budget per MB (an encoder ~190x the
# reference's time per byte; the catalogue's slow_pretoken_encoder, ~40x, finishes in a fifth of it).
SAMPLE_CHARS = 125_000
PACE_FACTOR = 3.0
STREAM_TIME_ALLOWANCE = 1
STREAM_MAX_BUDGETS = 8
STREAM_SLACK_S = 30.0


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("speed")


DIAGNOSED_SAMPLE_CHARS = 20_000  # the start of the text: enough stories to meet a pre-tokenizer fault
# A replay's own special token, absent from the gates' texts: put between every two pre-tokens, it
# makes each pre-token a piece of its own, which any pretokenize that keeps a lone pre-token whole
# gets right (see `_cause_first`).
SEPARATOR = "\x1e"
RESPELLED = N_(
    "Given the same special tokens spelled in characters that mean nothing to a regex (at the same "
    "ids), your {exercised} passes this gate: its failure here comes from the unescaped special "
    "tokens alone."
)
# A real training: its first merges on the gate's corpus are the expected ones, this many at least.
REAL_WORK_MERGES = 10
CHARGED_BY_TRAINING = N_(
    "Not charged here: your merges differ from the expected ones from merge #{k} on, but the first "
    "ones are right (a real training, timed as one) and your trainer's merges are wrong on 2.9's "
    "corpus too: the training tests charge that fault, this test grades only its speed."
)
REPLAYED = N_(
    "Given the same text with each pre-token cut out as a piece of its own (by one more special "
    "token), your {exercised} passes this gate: its failure here comes from the pieces alone."
)


@pytest.mark.timeout(300)
def test_training_speed(bpe, scratch, record_property):
    # No warm-up call: the import is no call's time (session.Session.prepare), and a warm-up with
    # other arguments (special_tokens=[]) could fail this gate for a reason that is not speed. A
    # train_bpe still a stub (an untouched starter) is known without a call: it raises before the
    # corpus is written and the reference timed.
    unwritten = bpe.kit.unwritten("train_bpe")
    if unwritten is not None:
        raise unwritten
    budget = calibration.budgets(scratch)["train"]
    corpus = calibration.write_training_corpus(scratch)
    found = _pieces_of(bpe, corpus.read_bytes().decode("utf-8"))
    with _cause_first(found, "train_bpe", lambda: _training_replay(bpe, budget, corpus, scratch)):
        _training_gate(bpe, budget, corpus, record_property, "" if found else _(TRAIN_HINT))


def _training_replay(bpe, budget, corpus, scratch) -> None:
    """The training gate again, on the corpus with each pre-token a piece of its own."""
    path = scratch / "speed_corpus_pieces.txt"
    path.write_bytes(_one_pretoken_per_piece(corpus.read_bytes().decode("utf-8")).encode("utf-8"))
    _training_gate(bpe, budget, path, _unrecorded, "", [EOT, SEPARATOR])


def _unrecorded(name, value) -> None:
    """A replay's record_property: what the student reads is the gate's own run."""


def _one_pretoken_per_piece(text: str) -> str:
    """`text` with SEPARATOR between every two of its pre-tokens (the contract's): the same
    pre-tokens and special tokens, each pre-token a piece of its own."""
    return "".join(
        piece if piece == EOT else SEPARATOR.join(reference_pretokenize(piece))
        for piece in reference_split(text, [EOT])
    )


def _pieces_of(bpe, text: str):
    """Diagnosed before timing, on the start of the gate's own text: when the pre-tokens already
    differ, a slow or wrong answer is explained by them, not by how pairs are counted or merged."""
    return first_difference_in_pieces(bpe, text[:DIAGNOSED_SAMPLE_CHARS], [EOT])


@contextlib.contextmanager
def _cause_first(found, exercised: str, replay, respelled=None):
    """A failure of a gate whose pieces differ names them first. It is proven to come from them
    alone when `replay()` (the gate again, on the same pre-tokens, each a piece of its own: the
    student's code on the right pieces) passes: the gate then carries their cause as a gate's,
    charged by the test that names it, never here (grader/charges.py). A replay that fails too
    proves nothing: slow code, or no real work, is charged here as usual.

    When the split is exactly the one of the special tokens joined into a regex without escaping,
    `respelled()` (the gate again, its special tokens spelled in characters that mean nothing to a
    regex, at the same ids) passing proves that fault alone, a crash of the student's code
    included; a crash not proven so keeps its own cause."""
    from grader.sandbox.remote_errors import RemoteError

    try:
        yield
    except (AssertionError, RemoteError) as failure:
        crashed = isinstance(failure, RemoteError)
        if found is None:
            raise
        unescaped = (
            respelled is not None
            and found.stage == "split_on_special_tokens"
            and unescaped_cut(*found.given, found.got) is not None
        )
        if crashed:
            message = _("Your code raised {error}: {message}").format(
                error=failure.remote_type, message=failure
            )
        else:
            message = str(failure).rstrip()
        if not crashed and _passes(replay):
            message += "\n" + _(REPLAYED).format(exercised=exercised)
        elif unescaped and _passes(respelled):
            message += "\n" + _(RESPELLED).format(exercised=exercised)
        elif crashed:
            raise
        else:
            raise diagnosed(found, message, exercised) from None
        raise diagnosed(found, message, exercised, gate=True) from None


def _passes(replay) -> bool:
    from grader.errors import GradingAbort

    try:
        replay()
    except (Exception, GradingAbort):  # whatever stops the replay, it proves nothing
        return False
    return True


def _training_gate(bpe, budget, corpus, record_property, hint: str, specials=(EOT,)) -> None:
    """`specials`: the gate's [EOT], or a replay's [EOT, SEPARATOR] (each takes an id: the same
    merges need vocab_size one more)."""
    specials = list(specials)
    size = TRAIN_VOCAB_SIZE + len(specials) - 1
    what = _("train_bpe on {kb} KB of stories, vocab_size={vocab_size}").format(
        kb=corpus.stat().st_size // 1000, vocab_size=size
    )
    result, measured = timed_call(
        bpe,
        budget,
        lambda: bpe.train_bpe(corpus, size, specials),
        what,
        hint,
        gate="training",
        record=record_property,
    )
    vocab, merges = check_train_result(result)
    expected = golden.SpeedTrainCase(golden.root("public"))  # the first merges, stored by `make fixtures`
    ok, message = verdict(measured, budget, what, hint)
    record_property("feedback", message.rstrip())
    if not ok:  # too slow: this gate's own charge, whatever the merges
        raise AssertionError(message.rstrip())
    first = merges[: len(expected.merges)]
    if len(vocab) != size:
        _raise_size_fault(bpe.kit.oracles, what, vocab, merges, first == expected.merges, specials)
    problem = explain_merges(expected.diagnostics(), expected.merges, first, returned=len(merges))
    if problem is None:
        return
    fault = _first_merges_fault(bpe.kit.oracles, corpus, expected, first)
    if _charged_by_training_tests(bpe, fault, expected.merges, first):
        k = first_difference(expected.merges, first)
        record_property("feedback", _(CHARGED_BY_TRAINING).format(k=k))  # after the time's line
        return
    message = _("{what}: fast, but the merges are wrong.").format(what=what) + "\n" + problem
    _raise_merge_fault(message, fault)


def _first_merges_fault(oracles, corpus, expected, first: list) -> Cause | None:
    """The tie-break or classic mistake that alone explains the first merges (merge_fault.py),
    proven only with the trusted oracles (`bpe.kit.oracles`), where the kit has them."""
    if oracles is None:
        return None
    text = corpus.read_bytes().decode("utf-8")
    return first_merges_fault(oracles, text, [EOT], expected.merges, first, expected.diagnostics())


def _charged_by_training_tests(bpe, fault: Cause | None, expected: list, first: list) -> bool:
    """Wrong first merges of a real training, whose fault the training tests charge: the first
    REAL_WORK_MERGES merges are right (canned or random merges are not), and the same trainer is
    wrong on 2.9's corpus too, where that fault costs its points. A stored classic mistake or a
    count of merges is left to the gate's proven cause (`_raise_merge_fault`); a tie-break found
    here is not proven (the trainer is not asked again to confirm its counts, as 2.9 asks it:
    grader/checks/tie_probe.py), so it is no reason to charge this gate either."""
    if fault is not None and fault["key"] != TIE_BREAK["key"]:
        return False
    if first[:REAL_WORK_MERGES] != expected[:REAL_WORK_MERGES]:
        return False
    return trains_case_wrong(bpe, "public", "generated_500")


def _raise_merge_fault(message: str, fault: Cause | None) -> None:
    """Wrong first merges are no training to time, so this gate fails, even within its budget; but
    when another tie-break alone explains them (the fault the training tests name), it carries
    that cause as a gate's (`gate`): where an earlier test charges that fault, this gate grades its
    speed alone and is not charged (grader/charges.py); so when a classic mistake alone makes them
    (the speed case stores each mistake's first merges). Merges no proven fault explains (canned
    ones, say) are no training, and earn no speed points."""
    if fault is None:
        raise AssertionError(message)
    cause: Cause = {**fault, "gate": True}
    raise Diagnosed(message + "\n" + _("Likely cause: {summary}.").format(summary=fault["summary"]), cause)


def _raise_size_fault(
    oracles, what: str, vocab: dict, merges: list, first_right: bool, specials: list
) -> None:
    """A vocab of another size: when its first merges are right and it follows them, the count of
    merges is the one fault (the training tests name it), carried as a gate's, like wrong merges."""
    size = TRAIN_VOCAB_SIZE + len(specials) - 1
    message = _("{what}: expected exactly {size} vocab entries, got {got}").format(
        what=what, size=size, got=len(vocab)
    )
    if not (oracles is not None and first_right and vocab_follows(oracles, vocab, specials, merges)):
        raise AssertionError(message)
    delta = len(vocab) - size
    right = merges[: len(merges) - delta] if delta > 0 else merges + [(b"", b"")] * -delta
    fault = merge_count_fault(right, merges, n_specials=1)
    cause: Cause = {**fault, "gate": True}
    raise Diagnosed(message + "\n" + _("Likely cause: {summary}.").format(summary=fault["summary"]), cause)


@pytest.mark.timeout(300)
def test_encode_speed(bpe, scratch, record_property):
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    tok = bpe.BPETokenizer(vocab, merges, specials)
    tok.encode("warm up: a first call may pay for lazy set-up (a pattern's compile)")
    budget = calibration.budgets(scratch)["encode"]
    text = calibration.generated(ENCODE_TEXT)
    found = _pieces_of(bpe, text)
    with _cause_first(found, "encode", lambda: _encoding_replay(bpe, budget, text)):
        _encoding_gate(bpe, tok, budget, text, record_property, "" if found else _(ENCODE_HINT))


def _encoding_replay(bpe, budget, text: str) -> None:
    """The encoding gate again, on the text with each pre-token a piece of its own."""
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    tok = bpe.BPETokenizer(vocab, merges, [*specials, SEPARATOR])
    tok.encode("warm up: a first call may pay for lazy set-up (a pattern's compile)")
    replayed = _one_pretoken_per_piece(text)
    _encoding_gate(bpe, tok, budget, replayed, _unrecorded, "", spelled=text)


def _without_separators(vocab, specials, ids: list[int]) -> list[int]:
    """A replay's ids without the separator's: the ids of the gate's own text, when right."""
    tokens = golden.with_specials(vocab, [*specials, SEPARATOR])
    separator = next(i for i, t in tokens.items() if t == SEPARATOR.encode("utf-8"))
    return [i for i in ids if i != separator]


def _encoding_gate(
    bpe, tok, budget, text: str, record_property, hint: str, spelled: str | None = None
) -> None:
    """`spelled`: for a replay (`text` cut by SEPARATOR), the gate's own text, which its ids
    without the separator's must spell."""
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    what = _("encode on {kb} KB of stories ({merges} merges)").format(
        kb=len(text.encode("utf-8")) // 1000, merges=len(merges)
    )
    ids, measured = timed_call(
        bpe, budget, lambda: tok.encode(text), what, hint, gate="encoding", record=record_property
    )
    # One concern per test: this gate grades speed. Ids split differently lose their points in the
    # encoding tests; ids that do not even spell the text are no encoding, and cannot be timed as one.
    ids = check_ids(ids)
    if spelled is not None:
        ids, text = _without_separators(vocab, specials, ids), spelled
    _spells_the_text(vocab, specials, ids, text, what)
    wrong = golden.IdDigest(golden.root("public") / "speed" / "encode" / "ids.txt").first_wrong_block(ids)
    ok, message = verdict(measured, budget, what, hint)
    message = message.rstrip()
    if wrong is not None:
        message += "\n" + _ids_differ(wrong, "3.9")
    record_property("feedback", message)
    if not ok:
        raise AssertionError(message)


def _ids_differ(first_wrong: int, see: str) -> str:
    return _(
        "Not charged here: your ids differ from the expected ones (the first wrong one among ids "
        "#{first} to #{last}), see {see}; this gate grades only the speed or memory of a real encoding."
    ).format(first=first_wrong, last=first_wrong + golden.BLOCK_IDS - 1, see=see)


def _spells_the_text(vocab, specials, ids: list[int], text: str, what: str, graded: str = "speed") -> None:
    """The ids must spell the text's bytes with this vocab, or they are not an encoding at all.
    `graded`: "speed" or "memory"."""
    tokens = golden.with_specials(vocab, specials)
    unknown = next((i for i in ids if i not in tokens), None)
    assert unknown is None, _(
        "{what}: id {id} is not in the vocab, so these ids are not an encoding of the text."
    ).format(what=what, id=unknown)
    spelled, expected = b"".join(tokens[i] for i in ids), text.encode("utf-8")
    if spelled == expected:
        return
    said = {
        "what": what,
        "spelled": len(spelled),
        "size": len(expected),
        "at": _first_difference(spelled, expected),
    }
    raise AssertionError(
        (
            _(
                "{what}: your ids spell {spelled} bytes, not the text's {size} bytes (first difference at "
                "byte {at}): not an encoding of the text, so its speed cannot be graded."
            )
            if graded == "speed"
            else _(
                "{what}: your ids spell {spelled} bytes, not the text's {size} bytes (first difference at "
                "byte {at}): not an encoding of the text, so its memory cannot be graded."
            )
        ).format(**said)
    )


def _first_difference(a: bytes, b: bytes) -> int:
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


@pytest.mark.timeout(900)  # a backstop only: a slow encoder's pace sets its CPU limit (see SAMPLE_CHARS)
def test_encode_iterable_memory(bpe, scratch, record_property):
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    # The tokenizer first: an unwritten one ends the test before the 2 MB file is written.
    tok = bpe.BPETokenizer(vocab, merges, specials)
    path = calibration.write_stream_file(scratch)
    text = path.read_bytes().decode("utf-8")
    sample = scratch / "stream_sample.txt"
    sample.write_bytes(text[:SAMPLE_CHARS].encode("utf-8"))
    encode = calibration.budgets(scratch)["encode"]
    per_mb = path.stat().st_size / len(calibration.generated(ENCODE_TEXT).encode("utf-8"))
    limits = STREAM_TIME_ALLOWANCE * per_mb * encode.abort_after, STREAM_MAX_BUDGETS * per_mb * encode.seconds
    found = _pieces_of(bpe, text)
    with _cause_first(
        found,
        "encode_iterable",
        lambda: _memory_replay(bpe, scratch, text, limits),
        lambda: _memory_respelled(bpe, scratch, text, limits),
    ):
        _memory_gate(bpe, tok, path, sample, text, limits, record_property, "" if found else _(ENCODE_HINT))


def _memory_replay(bpe, scratch, text: str, limits) -> None:
    """The memory gate again, on the file with each pre-token a piece of its own."""
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    tok = bpe.BPETokenizer(vocab, merges, [*specials, SEPARATOR])
    replayed = _one_pretoken_per_piece(text)
    path, sample = scratch / "stream_pieces.txt", scratch / "stream_pieces_sample.txt"
    path.write_bytes(replayed.encode("utf-8"))
    sample.write_bytes(replayed[:SAMPLE_CHARS].encode("utf-8"))
    _memory_gate(bpe, tok, path, sample, replayed, limits, _unrecorded, "", spelled=text)


def _memory_respelled(bpe, scratch, text: str, limits) -> None:
    """The memory gate again, its special tokens spelled in characters that mean nothing to a regex
    (grader/checks/diagnose.py `respelling`), at the same ids: the same ids are expected."""
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    respell = respelling(specials, text)
    if respell is None:  # the text holds a character of the respelling: no replay, no proof
        raise LookupError(respell)
    raw = {s.encode("utf-8"): respell[s].encode("utf-8") for s in specials}
    tok = bpe.BPETokenizer(
        {i: raw.get(t, t) for i, t in vocab.items()}, merges, [respell[s] for s in specials]
    )
    respelled = respelled_text(text, specials, respell)
    path, sample = scratch / "stream_respelled.txt", scratch / "stream_respelled_sample.txt"
    path.write_bytes(respelled.encode("utf-8"))
    sample.write_bytes(respelled[:SAMPLE_CHARS].encode("utf-8"))
    _memory_gate(bpe, tok, path, sample, text, limits, _unrecorded, "")


def _streamed(bpe, tok, path, cpu: float, why: str, hint: str):
    """encode_iterable over `path` under `cpu` seconds of CPU time; a stop says that the memory
    could not be measured, and `why` the limit was what it was."""
    from grader.errors import CallStalled, CallTimeout, CpuLimitExceeded

    wall = WALL_FACTOR * cpu + STREAM_SLACK_S
    size = path.stat().st_size
    with bpe.kit.timeout(wall, cpu=cpu):
        try:
            return bpe.kit.encode_file_streaming(tok, path)
        except CallStalled as stop:  # its words say why, and name a child process that failed
            raise AssertionError(f"{stop}\n{hint}".rstrip()) from None
        except CallTimeout as stop:
            said = {"size": _size(size), "cpu": cpu, "wall": wall, "why": why}
            words = (
                _(
                    "encode_iterable over {size} of text was stopped after {cpu:.0f} s of CPU time ({why}), "
                    "so its memory could not be measured."
                )
                if isinstance(stop, CpuLimitExceeded)
                else _(
                    "encode_iterable over {size} of text was stopped after {wall:.0f} s ({why}), so its "
                    "memory could not be measured."
                )
            )
            raise AssertionError(f"{words.format(**said)}\n{hint}".rstrip()) from None


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB" if n_bytes >= 1e6 else f"{n_bytes // 1000} KB"


def _memory_gate(
    bpe, tok, path, sample, text: str, limits, record_property, hint: str, spelled: str | None = None
) -> None:
    """Memory, on the whole file, under a CPU limit set by the encoder's own pace on its start.
    `spelled`: for a replay (`text` cut by SEPARATOR), the gate's own text (see `_encoding_gate`)."""
    vocab, _merges, specials = calibration.encode_tokenizer_parts()
    size = path.stat().st_size
    least, most = limits
    _streamed(bpe, tok, sample, most * sample.stat().st_size / size, _("far beyond any encoder's pace"), hint)
    pace = bpe.kit.last_call.cpu_s * size / sample.stat().st_size
    cpu = max(least, min(most, PACE_FACTOR * pace))
    why = (
        _(
            "{factor:g} x the {pace:.1f} s that its pace on the first {sample} predicts: does it encode "
            "again text it has already encoded?"
        ).format(factor=PACE_FACTOR, pace=pace, sample=_size(sample.stat().st_size))
        if cpu == PACE_FACTOR * pace
        else _("far beyond any encoder's pace")
        if cpu == most
        else _("the least this gate allows, {factor:g} x the encoding gate's stop per MB").format(
            factor=STREAM_TIME_ALLOWANCE
        )
    )
    result = _streamed(bpe, tok, path, cpu, why, hint)
    ids = check_ids(result.ids, "encode_iterable(...)")
    if spelled is not None:
        ids, text = _without_separators(vocab, specials, ids), spelled
    what = _("encode_iterable over a {mb:.1f} MB file").format(mb=size / 1e6)
    _spells_the_text(vocab, specials, ids, text, what, "memory")
    wrong = golden.IdDigest(golden.root("public") / "speed" / "stream" / "ids.txt").first_wrong_block(ids)
    limit = MEMORY_LIMIT_PER_FILE_BYTE * size
    message = _(
        "encode_iterable over a {mb:.1f} MB file grew your program's memory by {grew:.1f} MB; the limit "
        "is {limit:.1f} MB."
    ).format(mb=size / 1e6, grew=result.peak_growth_bytes / 1e6, limit=limit / 1e6)
    if wrong is not None:
        message += "\n" + _ids_differ(wrong, "3.10")
    record_property("feedback", message)
    record_property("figures", memory_figures("streaming memory", result.peak_growth_bytes, limit))
    if result.peak_growth_bytes > limit:
        raise AssertionError(
            message
            + "\n"
            + _(
                "Hint: encode_iterable must be lazy: never join all chunks, never build the whole "
                "list of ids; yield ids as soon as a pre-token is complete, keeping only the unfinished tail."
            )
        )
