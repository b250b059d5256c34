"""The graded suite's diagnostics: trusted trainers, wrong-rule detection, messages, budgets.

The messages read only stored data (data/fixtures); these tests retrain with the trusted oracles
(instructor-only) to check that the stored data tells the same story.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import budgets as budget_rules
from grader import calibration
from grader.bpe_facts import golden
from grader.bpe_facts.render import escape, unescape
from grader.budgets import Budget
from grader.checks.expect import expect_error
from grader.checks.messages import explain_merges, explain_vocab
from grader.checks.speed import timed_call, verdict, wall_limit
from grader.oracles import char_bpe
from grader.oracles.encoder import TrustedEncoder
from grader.oracles.trainer import Replay, train
from grader.oracles.wrong_rules import WRONG_RULES

SMALL_CASES = [
    (v, d.name)
    for v in ("public", "hidden")
    for d in sorted((golden.root(v) / "train").iterdir())
    if d.name not in ("generated_500", "hidden_mixed")
]
KIT_SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=60)


@pytest.fixture(scope="module")
def reference():
    import reference_bpe

    return reference_bpe.load()


@KIT_SETTINGS
@given(st.binary(max_size=40))
def test_escape_round_trips_and_stays_one_printable_word(data):
    text = escape(data)
    assert unescape(text) == data
    assert text.isascii() and " " not in text and "\n" not in text


@pytest.mark.parametrize("rule", WRONG_RULES, ids=lambda r: r.name)
def test_each_wrong_rule_is_named_on_some_fixture_case(rule):
    for visibility, name in SMALL_CASES:
        case = golden.TrainCase(golden.root(visibility), name)
        text = case.corpus_text()
        _, wrong = train(text, case.vocab_size, case.special_tokens, rule.rules)
        if wrong != case.merges:
            message = explain_merges(case.diagnostics(), case.merges, wrong)
            assert f"Likely cause: {rule.name}." in message, message
            return
    pytest.fail(f"no small fixture case exposes the mistake {rule.name!r}")


def test_first_difference_shows_expected_got_and_tied_pairs():
    case = golden.TrainCase(golden.root("public"), "tiny_words")
    got = list(case.merges)
    got[3], got[4] = got[4], got[3]
    message = explain_merges(case.diagnostics(), case.merges, got)
    assert "for the first 3 merge(s), then differ at merge #3" in message
    assert f"expected: ({case.merges[3][0]!r}, {case.merges[3][1]!r})" in message
    assert f"got:      ({got[3][0]!r}, {got[3][1]!r})" in message
    assert "tied at" in message or "single most frequent pair" in message
    first = explain_merges(case.diagnostics(), case.merges, [got[1]] + got)
    assert "very first merge" in first


@pytest.mark.parametrize(("mistake", "listed"), [("specials_given_order", False), ("tie_smaller_pair", True)])
def test_tied_pairs_are_listed_only_where_ties_may_be_the_cause(mistake, listed):
    """The pairs tied where merges first differ help a student whose tie-break is wrong; beside
    another classic mistake (special tokens split in the order given) they read as the cause."""
    case = golden.TrainCase(golden.root("public"), "overlap")
    got = case.diagnostics().mistakes[mistake]
    message = explain_merges(case.diagnostics(), case.merges, got)
    assert "Likely cause" in message
    assert ("pairs are tied at" in message) == listed, message


def test_a_mistake_is_named_only_when_it_makes_every_merge_returned():
    """Merges that agree with a classic mistake where they first differ from the expected ones, but
    not after, are not that mistake: naming it would send the student to the wrong fault."""
    case = golden.SpeedTrainCase(golden.root("public"))
    diagnostics = case.diagnostics()
    mistake = diagnostics.mistakes["tie_smaller_pair"]
    k = next(i for i, (e, g) in enumerate(zip(case.merges, mistake)) if e != g)
    assert "smaller pair wins ties" in explain_merges(diagnostics, case.merges, mistake)
    later = mistake[: k + 3] + [mistake[k + 4], mistake[k + 3]] + mistake[k + 5 :]
    assert later != mistake
    assert "smaller pair wins ties" not in explain_merges(diagnostics, case.merges, later)
    # The gate checks the first merges only: a trainer that returned more merges than the stored
    # mistake reaches is not proven to make that mistake, however well its first merges agree.
    assert "smaller pair wins ties" in explain_merges(
        diagnostics, case.merges, mistake, returned=len(mistake)
    )
    message = explain_merges(diagnostics, case.merges, mistake, returned=len(mistake) + 700)
    assert "smaller pair wins ties" not in message and "exactly what" not in message, message


def test_stopping_too_early_or_too_late_is_explained():
    case = golden.TrainCase(golden.root("public"), "early_stop")
    text = case.corpus_text()
    diagnostics = case.diagnostics()
    assert "You stopped after 10 merges" in explain_merges(diagnostics, case.merges, case.merges[:10])
    once = next(i for i in range(len(case.merges)) if max(_counts_after(text, case.merges[:i]).values()) == 1)
    assert "occurs only once" in explain_merges(diagnostics, case.merges, case.merges[:once])
    assert "occurs only once" not in explain_merges(diagnostics, case.merges, case.merges[: once - 1])
    extra = case.merges + [(b"a", b"b")]
    assert "no pair is left" in explain_merges(diagnostics, case.merges, extra)
    assert explain_merges(diagnostics, case.merges, list(case.merges)) is None


def _counts_after(text, merges):
    replay = Replay(text, [])
    for pair in merges:
        replay.apply(pair)
    return replay.counts()


@pytest.mark.parametrize(
    ("visibility", "name"), [("public", "tiny_words"), ("public", "specials"), ("hidden", "hidden_tricky")]
)
def test_stored_steps_agree_with_a_live_replay(visibility, name):
    case = golden.TrainCase(golden.root(visibility), name)
    steps = case.diagnostics().steps
    assert len(steps) == len(case.merges)
    replay = Replay(case.corpus_text(), case.special_tokens)
    for k, (pair, step) in enumerate(zip(case.merges, steps)):
        counts = replay.counts()
        assert step.top == max(counts.values()) == counts[pair], k
        assert step.tied == sum(1 for n in counts.values() if n == step.top), k
        assert all(counts.get(p, 0) == n for p, n in step.counts.items()), k
        assert all(n <= step.others for p, n in counts.items() if p not in step.counts), k
        replay.apply(pair)


def test_a_pair_that_cannot_occur_or_is_rare_is_said_so():
    case = golden.TrainCase(golden.root("public"), "tiny_words")
    diagnostics = case.diagnostics()
    k = 5
    step = diagnostics.steps[k]
    never = (b"\xff\xfe", b"q")  # no merge made b"\xff\xfe"
    message = explain_merges(diagnostics, case.merges, case.merges[:k] + [never])
    assert "Your pair (b'\\xff\\xfe', b'q') does not occur at all" in message, message
    counts = _counts_after(case.corpus_text(), case.merges[:k])
    rare = next(p for p, n in counts.items() if p not in step.counts and 0 < n < step.top)
    message = explain_merges(diagnostics, case.merges, case.merges[:k] + [rare])
    assert f"at most {step.others} time(s)" in message
    listed = next(p for p, n in step.counts.items() if 0 < n < step.top)
    message = explain_merges(diagnostics, case.merges, case.merges[:k] + [listed])
    assert f"occurs only {step.counts[listed]} time(s)" in message


def test_id_digest_finds_the_first_wrong_block(tmp_path):
    ids = list(range(3 * golden.BLOCK_IDS + 5))
    path = tmp_path / "ids.txt"
    path.write_text(golden.format_id_digest("test", ids), encoding="ascii")
    digest = golden.IdDigest(path)
    assert digest.count == len(ids) and digest.first_wrong_block(ids) is None
    wrong = list(ids)
    wrong[2 * golden.BLOCK_IDS + 7] = -1
    assert digest.first_wrong_block(wrong) == 2 * golden.BLOCK_IDS
    assert digest.first_wrong_block(ids[:-1]) == 3 * golden.BLOCK_IDS
    assert digest.first_wrong_block(ids + [1]) == 3 * golden.BLOCK_IDS


def test_vocab_differences_are_explained():
    expected = {i: bytes([i]) for i in range(256)} | {256: b"<|endoftext|>", 257: b"th"}
    assert explain_vocab(expected, dict(expected)) is None
    swapped = dict(expected) | {256: b"th", 257: b"<|endoftext|>"}
    message = explain_vocab(expected, swapped, n_specials=1)
    assert "id 256: expected b'<|endoftext|>', got b'th'" in message and "special tokens" in message
    assert "Missing ids" in explain_vocab(expected, {i: expected[i] for i in range(257)})


@KIT_SETTINGS
@given(st.text(alphabet="ab \nc", max_size=30), st.integers(0, 6))
def test_trusted_char_bpe_agrees_with_the_reference(reference, text, num_merges):
    model = reference.CharBPE.train(text, num_merges)
    vocab, merges = char_bpe.train(text, num_merges)
    assert (model.vocab, model.merges) == (vocab, merges)


@KIT_SETTINGS
@given(
    st.lists(
        st.sampled_from(["the", " the", " cat", "<|endoftext|>", "小猫", "😊", "\r\n", "  ", "x²", "a"]),
        max_size=10,
    ).map("".join)
)
def test_trusted_encoder_agrees_with_the_reference(reference, text):
    case = golden.TrainCase(golden.root("public"), "generated_500")
    specials = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]
    assert TrustedEncoder(case.vocab, case.merges, specials).encode(text) == reference.BPETokenizer(
        case.vocab, case.merges, specials
    ).encode(text)


def test_the_yardstick_is_deterministic_work_not_a_trainer():
    text = "the cat sat on the mat " * 50
    assert (
        calibration.yardstick_workload(text, rounds=3) == calibration.yardstick_workload(text, rounds=3) > 0
    )
    assert "train" not in calibration.yardstick_workload.__code__.co_names


def test_budget_falls_back_to_the_yardstick_without_the_reference(monkeypatch, tmp_path):
    monkeypatch.setattr(calibration, "reference_dir", lambda: None)
    with calibration.reset():
        budgets = calibration.budgets(tmp_path)
    assert set(budgets) == set(budget_rules.FACTORS)
    for _gate, budget in budgets.items():
        assert budget.seconds > 0 and "yardstick" in budget.basis
        assert budget.abort_after == pytest.approx(budget_rules.ABORT_AT * budget.seconds)


def test_verdict_reports_the_ratio_to_the_budget():
    budget = Budget(2.0, "7 x the reference")
    ok, text = verdict(1.0, budget, "train_bpe", "Hint: go incremental")
    assert ok and "0.50x the budget of 2.00 s" in text and "Hint" not in text
    ok, text = verdict(5.0, budget, "train_bpe", "Hint: go incremental")
    assert not ok and "2.50x" in text and "Hint: go incremental" in text


class _StoppingKit:
    """A `bpe.kit` whose calls end the way a real one ends them when a limit is hit."""

    def __init__(self, stop):
        self.stop, self.limits = stop, []

    def timeout(self, seconds, cpu=None):
        import contextlib

        self.limits.append((seconds, cpu))
        return contextlib.nullcontext()


def _stopped_gate(stop, recorded=None) -> tuple[str, list]:
    kit = _StoppingKit(stop)
    bpe = type("Bpe", (), {"kit": kit})()

    def call():
        raise kit.stop("stopped")

    record = (lambda k, v: recorded.append((k, v))) if recorded is not None else None
    with pytest.raises(AssertionError) as info:
        timed_call(
            bpe,
            Budget(2.0, "7 x the reference"),
            call,
            "train_bpe on 1 MB",
            "Hint: go incremental",
            gate="training",
            record=record,
        )
    return str(info.value), kit.limits


def test_a_speed_gate_stops_on_cpu_time_and_says_so():
    from grader.errors import CpuLimitExceeded

    recorded = []
    text, limits = _stopped_gate(CpuLimitExceeded, recorded)
    budget = Budget(2.0, "7 x the reference")
    assert limits == [(wall_limit(budget), budget.abort_after)]
    assert wall_limit(budget) > 2 * budget.abort_after  # wall time only catches a call that waits
    assert text.startswith(f"train_bpe on 1 MB was stopped after {budget.abort_after:.2f} s of CPU time")
    assert "Hint: go incremental" in text
    [(name, figures)] = recorded
    assert name == "figures" and figures["stopped"] and figures["ratio"] == budget_rules.ABORT_AT
    assert f"more than {figures['ratio']:g}x its time budget" in text


def test_a_speed_gate_stopped_on_wall_time_asks_what_it_waits_for():
    from grader.errors import CallTimeout

    text, _ = _stopped_gate(CallTimeout)
    assert "of wall-clock time without finishing" in text and "waiting on something" in text
    assert "Hint: go incremental" in text


def test_expect_error_says_what_happened_instead():
    assert isinstance(expect_error(ValueError, lambda: int("x"), "int('x')", "not a number"), ValueError)
    with pytest.raises(
        AssertionError, match=r"int\('1'\) should raise ValueError \(why\), but it returned 1"
    ):
        expect_error(ValueError, lambda: int("1"), "int('1')", "why")
    with pytest.raises(AssertionError, match="but it raised KeyError"):
        expect_error(ValueError, lambda: {}["k"], "d['k']", "why")
