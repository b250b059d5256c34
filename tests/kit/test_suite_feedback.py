"""The graded suite's diagnostics: trusted trainers, wrong-rule detection, messages, budgets."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from grader import calibration
from grader.calibration import Budget
from grader.feedback import char_bpe, golden
from grader.feedback.encoder import TrustedEncoder
from grader.feedback.errors import expect_error
from grader.feedback.messages import explain_merges, explain_vocab
from grader.feedback.render import escape, unescape
from grader.feedback.speed import verdict
from grader.feedback.trainer import Replay, train
from grader.feedback.wrong_rules import WRONG_RULES

KIT = Path(__file__).resolve().parents[2]
SMALL_CASES = [(v, d.name) for v in ("public", "hidden") for d in sorted((golden.root(v) / "train").iterdir())
               if d.name not in ("generated_500", "hidden_mixed")]
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
            message = explain_merges(text, case.vocab_size, case.special_tokens, case.merges, wrong)
            assert f"Likely cause: {rule.name}." in message, message
            return
    pytest.fail(f"no small fixture case exposes the mistake {rule.name!r}")


def test_first_difference_shows_expected_got_and_tied_pairs():
    case = golden.TrainCase(golden.root("public"), "tiny_words")
    text = case.corpus_text()
    got = list(case.merges)
    got[3], got[4] = got[4], got[3]
    message = explain_merges(text, case.vocab_size, [], case.merges, got)
    assert "for the first 3 merge(s), then differ at merge #3" in message
    assert f"expected: ({case.merges[3][0]!r}, {case.merges[3][1]!r})" in message
    assert f"got:      ({got[3][0]!r}, {got[3][1]!r})" in message
    assert "tied at" in message or "single most frequent pair" in message
    first = explain_merges(text, case.vocab_size, [], case.merges, [got[1]] + got)
    assert "very first merge" in first


def test_stopping_too_early_or_too_late_is_explained():
    case = golden.TrainCase(golden.root("public"), "early_stop")
    text = case.corpus_text()
    assert "You stopped after 10 merges" in explain_merges(text, case.vocab_size, [], case.merges, case.merges[:10])
    once = next(i for i in range(len(case.merges)) if max(_counts_after(text, case.merges[:i]).values()) == 1)
    assert "occurs only once" in explain_merges(text, case.vocab_size, [], case.merges, case.merges[:once])
    extra = case.merges + [(b"a", b"b")]
    assert "no pair is left" in explain_merges(text, case.vocab_size, [], case.merges, extra)
    assert explain_merges(text, case.vocab_size, [], case.merges, list(case.merges)) is None


def _counts_after(text, merges):
    replay = Replay(text, [])
    for pair in merges:
        replay.apply(pair)
    return replay.counts()


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
@given(st.lists(st.sampled_from(["the", " the", " cat", "<|endoftext|>", "小猫", "😊", "\r\n", "  ", "x²", "a"]),
                max_size=10).map("".join))
def test_trusted_encoder_agrees_with_the_reference(reference, text):
    case = golden.TrainCase(golden.root("public"), "generated_500")
    specials = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]
    assert TrustedEncoder(case.vocab, case.merges, specials).encode(text) == \
        reference.BPETokenizer(case.vocab, case.merges, specials).encode(text)


def test_budget_falls_back_to_the_yardstick_without_the_reference(monkeypatch, tmp_path):
    monkeypatch.setattr(calibration, "reference_dir", lambda: None)
    with calibration.reset():
        budgets = calibration.budgets(tmp_path)
    assert set(budgets) == set(calibration.FACTORS)
    for gate, budget in budgets.items():
        assert budget.seconds > 0 and "yardstick" in budget.basis
        assert budget.abort_after == pytest.approx(calibration.ABORT_AT * budget.seconds)


def test_verdict_reports_the_ratio_to_the_budget():
    budget = Budget(2.0, "7 x the reference")
    ok, text = verdict(1.0, budget, "train_bpe", "Hint: go incremental")
    assert ok and "0.50x the budget of 2.00 s" in text and "Hint" not in text
    ok, text = verdict(5.0, budget, "train_bpe", "Hint: go incremental")
    assert not ok and "2.50x" in text and "Hint: go incremental" in text


def test_expect_error_says_what_happened_instead():
    assert isinstance(expect_error(ValueError, lambda: int("x"), "int('x')", "not a number"), ValueError)
    with pytest.raises(AssertionError, match=r"int\('1'\) should raise ValueError \(why\), but it returned 1"):
        expect_error(ValueError, lambda: int("1"), "int('1')", "why")
    with pytest.raises(AssertionError, match="but it raised KeyError"):
        expect_error(ValueError, lambda: {}["k"], "d['k']", "why")
