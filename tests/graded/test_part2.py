"""Part 2: byte-level BPE training (`bpe.train_bpe`) and the functions it uses, against golden fixtures.

Each training test trains on a small corpus from data/fixtures/public/corpora/ and compares the merges
and the vocab, exactly, with the golden ones. When they differ, the message shows the first different
merge, the pairs tied at that step, and, when one reproduces your merges, the classic mistake.

PYTEST_DONT_REWRITE: every check carries its own message, written for students.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from data.corpus import EOT
from grader.bpe_facts import golden
from grader.bpe_facts.gpt2 import GPT2_PATTERN
from grader.bpe_facts.text_pieces import VARIED
from grader.checks.diagnose import Diagnosed, Finding, first_difference_in_specials
from grader.checks.expect import expect_error
from grader.checks.merge_fault import specials_as_text_fault, specials_not_counted_fault
from grader.checks.messages import diagnosed
from grader.checks.shapes import check_train_result
from grader.checks.training_check import check_training_case
from grader.i18n import N_, _


@pytest.mark.timeout(30)
def test_split_on_special_tokens(bpe):
    cases = [
        ("a<|endoftext|>b", [EOT], ["a", EOT, "b"]),
        ("<|endoftext|><|endoftext|>", [EOT], [EOT, EOT]),
        ("x<|e|><|e|>y<|e|>", ["<|e|>", "<|e|><|e|>"], ["x", "<|e|><|e|>", "y", "<|e|>"]),
        ("<|e|><|e|><|e|>", ["<|e|>", "<|e|><|e|>"], ["<|e|><|e|>", "<|e|>"]),
        ("a[SEP]b(a|b)*c", ["[SEP]", "(a|b)*"], ["a", "[SEP]", "b", "(a|b)*", "c"]),
        ("SEP a|b", ["[SEP]", "(a|b)*"], ["SEP a|b"]),
        ("", [EOT], []),
        ("<|endoftext|", [EOT], ["<|endoftext|"]),
        # Literal means case too, and the whole token: these are ordinary text.
        ("<|ENDOFTEXT|>a<|EndOfText|>", [EOT], ["<|ENDOFTEXT|>a<|EndOfText|>"]),
        (f"endoftext|>{EOT}<|endoftext", [EOT], ["endoftext|>", EOT, "<|endoftext"]),
    ]
    for text, specials, expected in cases:
        got = bpe.split_on_special_tokens(text, specials)
        assert type(got) is list, _("{function} must return a list, got {kind}").format(
            function="split_on_special_tokens", kind=type(got).__name__
        )
        if got != expected:  # the cause of any later failure it explains (grader/checks/diagnose.py)
            split = "split_on_special_tokens"
            raise diagnosed(Finding(split, split, (text, specials), expected, got), "")
    _long_texts_split(bpe)

    @given(st.lists(st.sampled_from(["a", "b", " ", "<|e|>", "<|e|><|e|>", "<|", "|>", "\n"]), max_size=12))
    def joins_back(parts):
        text = "".join(parts)
        got = bpe.split_on_special_tokens(text, ["<|e|>", "<|e|><|e|>"])
        assert "".join(got) == text and "" not in got, _(
            "the smallest text that breaks it: {text}: the pieces {got} must be non-empty and join back to the text"
        ).format(text=repr(text), got=repr(got))

    joins_back()


def _long_texts_split(bpe) -> None:
    """Special tokens after 300 characters: positions past 256 are ints that `is` does not find
    equal (CPython shares only the small ones), so they must be compared with ==, < or >."""
    run = "a" * 300
    for text, said in [(run + EOT, "'a' * 300 + EOT"), (run + EOT + EOT, "'a' * 300 + EOT + EOT")]:
        got = bpe.split_on_special_tokens(text, [EOT])
        expected = [run] + [EOT] * text.count(EOT)
        if got == expected:
            continue
        shown = [
            "EOT" if p == EOT else f"'a' * {len(p)}" if len(p) > 20 and p == "a" * len(p) else repr(p)
            for p in got
        ]
        raise AssertionError(
            _(
                "{call} should be {expected}, got {got}. The pieces are never empty and join back to "
                "the text. Past 256 characters, two equal positions are two different int objects: "
                "compare positions with ==, < or >, never with `is` or `is not`."
            ).format(
                call=f"split_on_special_tokens({said}, [EOT])",
                expected="['a' * 300" + ", EOT" * text.count(EOT) + "]",
                got="[" + ", ".join(shown) + "]",
            )
        )


@pytest.mark.timeout(30)
def test_pretokenize(bpe):
    texts = [
        "Hello, world! It's 2024.",
        "they're we'll I've don't",
        "  spaces   and\ttabs\n\n",
        "x² + y² = z²",
        "snake_case",
        "从前，有一只小猫。",
        "line\r\nnext\rlast",
        "🙂👍 ok",
    ] + [t for t in VARIED if EOT not in t]  # case, marks, right to left, emoji sequences, all of \s
    for text in texts:
        expected = regex.findall(GPT2_PATTERN, text)
        got = bpe.pretokenize(text)
        if got != expected:  # the cause of any later failure it explains (grader/checks/diagnose.py)
            raise diagnosed(Finding("pretokenize", "pretokenize", text, expected, got), "")


@pytest.mark.timeout(60)
def test_train_tiny_words(bpe):
    check_training_case(bpe, "public", "tiny_words")


@pytest.mark.timeout(60)
def test_train_with_special_token(bpe):
    check_training_case(bpe, "public", "specials")


@pytest.mark.timeout(60)
def test_train_overlapping_specials(bpe):
    check_training_case(bpe, "public", "overlap")


@pytest.mark.timeout(60)
def test_train_regex_metacharacter_specials(bpe):
    check_training_case(bpe, "public", "metachar")


@pytest.mark.timeout(60)
def test_train_lone_carriage_returns(bpe):
    check_training_case(bpe, "public", "newlines_cr")


@pytest.mark.timeout(60)
def test_train_unicode_numbers(bpe):
    check_training_case(bpe, "public", "unicode_numbers")


@pytest.mark.timeout(120)
def test_train_generated_corpus(bpe):
    check_training_case(bpe, "public", "generated_500")


@pytest.mark.timeout(60)
def test_train_early_stop(bpe):
    check_training_case(bpe, "public", "early_stop")


@pytest.mark.timeout(30)
def test_train_argument_errors(bpe):
    corpus = golden.root("public") / "corpora" / "tiny_words.txt"
    # A special token listed twice counts once: first with room to spare, so that a vocab holding
    # it twice is seen (and named) before any size check.
    vocab, _merges = check_train_result(bpe.train_bpe(corpus, 270, [EOT, EOT]))
    layout = {i: bytes([i]) for i in range(256)} | {256: EOT.encode()}
    found = first_difference_in_specials(layout, vocab, [EOT], "train_bpe")
    if found:
        raise diagnosed(found, "(train_bpe(corpus, 270, special_tokens=[EOT, EOT]))")
    for vocab_size, specials, why in [
        (256, [EOT], N_("256 bytes + 1 special token need 257 ids")),
        (257, [EOT, "<|pad|>"], N_("256 bytes + 2 special tokens need 258 ids")),
    ]:
        expect_error(
            ValueError,
            lambda vocab_size=vocab_size, specials=specials: bpe.train_bpe(corpus, vocab_size, specials),
            f"train_bpe(corpus, {vocab_size}, {specials!r})",
            _(why),
        )
    expect_error(
        ValueError,
        lambda: bpe.train_bpe(corpus, 300, [""]),
        "train_bpe(corpus, 300, [''])",
        _("a special token cannot be the empty string"),
    )
    vocab, merges = check_train_result(bpe.train_bpe(corpus, 257, [EOT, EOT]))
    if len(vocab) != 257 or merges != []:
        message = _(
            "vocab_size=257 with special_tokens=[EOT, EOT] is valid (duplicates count once): "
            "expected 257 ids and no merges, got {ids} ids and {merges} merges"
        ).format(ids=len(vocab), merges=len(merges))
        contract = getattr(bpe.kit, "contract", "kit")
        fault = specials_not_counted_fault(
            bpe.kit.oracles, corpus.read_text(encoding="utf-8"), [EOT], 257, vocab, merges, contract
        )
        if fault is not None:  # the training tests' fault, proven here too: charged once
            raise Diagnosed(message, fault)
        raise AssertionError(message)


@pytest.mark.timeout(30)
def test_train_file_errors(bpe, tmp_path):
    missing = "/nonexistent/bpe-kit/missing-corpus-4321.txt"
    error = expect_error(
        FileNotFoundError,
        lambda: bpe.train_bpe(missing, 300, [EOT]),
        f"train_bpe({missing!r}, 300, [{EOT!r}])",
        _("the file does not exist"),
    )
    assert "missing-corpus-4321.txt" in str(error), _(
        "the error for a missing file must name the path; your message was: {error}"
    ).format(error=error)
    bad = tmp_path / "bad-utf8-corpus-9876.txt"
    bad.write_bytes(b"hello world\nthis byte \xff is not UTF-8\n")
    error = expect_error(
        ValueError,
        lambda: bpe.train_bpe(bad, 300, [EOT]),
        _("train_bpe on a file holding the byte 0xff"),
        _("the file is not valid UTF-8"),
    )
    assert "bad-utf8-corpus-9876.txt" in str(error), _(
        "the error for a file that is not valid UTF-8 must name the path; your message was: {error}"
    ).format(error=error)


@pytest.mark.timeout(60)
def test_train_exact_text(bpe):
    # The file starts and ends with whitespace: every character of it is training data.
    check_training_case(bpe, "public", "exact_text")
    # A listed special token that the file never holds cuts nothing; the file ends in "é".
    check_training_case(bpe, "public", "special_absent")


@pytest.mark.timeout(60)
def test_train_only_listed_specials(bpe):
    # "<|pad|>" is the only special token: "<|endoftext|>" in the same file is ordinary text.
    check_training_case(bpe, "public", "other_special")


@pytest.mark.timeout(120)
def test_train_parallel_cuts(bpe):
    # 24 KB with a long word across every 1/8 of the bytes: a trainer that splits its work may cut
    # the file only at a special token, and never where there is none. Graded as if on 2, 4 and 8
    # cores (bpe.kit.cores), so a trainer that cuts per core is caught on a one-core machine too.
    for cores in (2, 4, 8):
        with bpe.kit.cores(cores):
            check_training_case(bpe, "public", "cut_nowhere")
            check_training_case(bpe, "public", "cut_rare_special")


@pytest.mark.timeout(60)
def test_train_edge_files(bpe, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    only = tmp_path / "only-special-tokens.txt"
    only.write_bytes((EOT * 3 + "<|pad|>" + EOT).encode("utf-8"))
    for path, specials, what in [
        (empty, [EOT], N_("an empty file")),
        (only, [EOT, "<|pad|>"], N_("a file that holds nothing but special tokens")),
    ]:
        vocab, merges = check_train_result(bpe.train_bpe(path, 300, specials))
        expected = {i: bytes([i]) for i in range(256)} | {256 + k: s.encode() for k, s in enumerate(specials)}
        if merges == [] and vocab == expected:
            continue
        message = _(
            "train_bpe on {what} (vocab_size=300, special_tokens={specials}) has no pair to merge: "
            "expected the 256 bytes and the special tokens ({expected} ids) and no merges, "
            "got {ids} ids and {merges} merges"
        ).format(
            what=_(what), specials=repr(specials), expected=len(expected), ids=len(vocab), merges=len(merges)
        )
        contract = getattr(bpe.kit, "contract", "kit")
        text = path.read_text(encoding="utf-8")
        fault = specials_as_text_fault(bpe.kit.oracles, text, specials, 300, vocab, merges, contract)
        if fault is not None:  # the training tests' fault, proven here too: charged once
            hint = fault.pop("hint")
            summary = _("Likely cause: {summary}.").format(summary=fault["summary"])
            raise Diagnosed(message + "\n" + summary + "\n  " + _(hint), fault)
        raise AssertionError(message)


@pytest.mark.timeout(120)
def test_train_no_special_tokens(bpe):
    # special_tokens=[] is this test's concern alone: every other test that trains on a file without
    # special tokens passes one that the file does not hold (grader/checks/training_check.py).
    # No special token at all: "<|endoftext|>" in the file is ordinary text.
    check_training_case(bpe, "public", "eot_not_special", empty_list=True)
    # No special token, so nowhere to cut the file (graded as on 2, 4 and 8 cores, like 2.17).
    for cores in (2, 4, 8):
        with bpe.kit.cores(cores):
            check_training_case(bpe, "public", "cut_nowhere", empty_list=True)
    if getattr(bpe.kit, "contract", "kit") != "kit":
        return  # the rest is the kit's own contract (CS336 has no split function, no size errors)
    got = bpe.split_on_special_tokens("no specials here", [])
    assert got == ["no specials here"], _("{call} should be {expected}, got {got}").format(
        call="split_on_special_tokens('no specials here', [])", expected="['no specials here']", got=repr(got)
    )
    corpus = golden.root("public") / "corpora" / "tiny_words.txt"
    expect_error(
        ValueError,
        lambda: bpe.train_bpe(corpus, 255, []),
        "train_bpe(corpus, 255, [])",
        _("256 byte tokens do not fit in 255 ids"),
    )
