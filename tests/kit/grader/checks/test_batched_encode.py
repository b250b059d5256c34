"""Many texts in few calls (grader/checks/batched.py): a correct encoder is called a bounded number
of times, and a wrong one is still judged on the smallest text where it is wrong."""

from __future__ import annotations

from grader.bpe_facts import golden
from grader.checks.batched import ALONE, GROUP_TEXTS, encoded_apart, groups
from grader.oracles.encoder import TrustedEncoder

EOT = "<|endoftext|>"


def _case():
    case = golden.EncodeCase(golden.root("public"), "generated")
    encoder = TrustedEncoder(
        golden.with_specials(case.train.vocab, case.special_tokens), case.train.merges, case.special_tokens
    )
    return case, encoder


def test_groups_keep_the_order_and_leave_alone_what_a_separator_would_join():
    texts = [f"t{k}" for k in range(ALONE)] + ["a", "b" + EOT, EOT + "c", "", "d", "e"]
    cut = groups(texts, [EOT, EOT + EOT])
    assert [t for g in cut for t in g] == texts
    assert all(len(g) == 1 for g in cut[:ALONE])
    assert ["b" + EOT] in cut and [EOT + "c"] in cut and [""] in cut  # a special token would join theirs
    assert groups(texts, []) == [[t] for t in texts]  # no special token: every text alone


def test_a_correct_encoder_is_called_a_bounded_number_of_times():
    case, encoder = _case()
    calls = []

    def encode(text):
        calls.append(text)
        return encoder.encode(text)

    sep_id = min(
        i for i, t in golden.with_specials(case.train.vocab, case.special_tokens).items() if t == EOT.encode()
    )
    judged = list(encoded_apart(case.texts, list(case.special_tokens), sep_id, encode))
    assert all(got == want for _t, want, got in judged)
    assert len(calls) < len(case.texts) / 4 and len(case.texts) > 4 * GROUP_TEXTS


def test_a_wrong_text_inside_a_group_is_judged_on_its_own():
    case, encoder = _case()
    sep_id = min(
        i for i, t in golden.with_specials(case.train.vocab, case.special_tokens).items() if t == EOT.encode()
    )
    cut = groups([t for t, _ in case.texts], list(case.special_tokens))
    bad = next(g for g in cut if len(g) > 1)[1]

    def encode(text):  # wrong wherever `bad` is encoded, joined or alone
        ids = encoder.encode(text)
        return ids + [0] if bad in text else ids

    judged = [
        (t, want == got)
        for t, want, got in encoded_apart(case.texts, list(case.special_tokens), sep_id, encode)
    ]
    assert (bad, False) in judged and all(ok for t, ok in judged if t != bad)
