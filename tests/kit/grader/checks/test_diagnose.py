"""Feedback from the diagnosed cause: the earliest stage that differs is named first, as data, and
one fault is named once across the tests it fails.

The first tests drive grader/checks/diagnose.py and the report with a submission stand-in (plain
functions); the last ones grade catalogue rows, jailed, and read the sentences from results.json.
"""

from __future__ import annotations

import contextlib
import re

import pytest

from data.corpus import EOT
from grader import scoring
from grader.bpe_facts import pieces
from grader.bpe_facts.pieces import reference_split
from grader.charges import charge
from grader.checks import diagnose
from grader.checks.diagnose import Finding
from grader.checks.messages import diagnosed, explain_finding
from grader.report import results_json, terminal
from grader.rubric import Entry
from grader.suite.outcome import record


class _Kit:
    contract = "kit"

    @contextlib.contextmanager
    def timeout(self, seconds, cpu=None):
        yield


class _Bpe:
    """The two functions a diagnosis asks a submission, right unless replaced."""

    kit = _Kit()

    def __init__(self, pretokenize=None, split=None):
        self.pretokenize = pretokenize or pieces.reference_pretokenize
        self.split_on_special_tokens = split or pieces.reference_split


def _re_pretokenize(text):  # `re` instead of `regex`: '_' is a word character, so it is lost here
    return re.findall(r"'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+", text)


def test_reference_split_is_the_contract():
    assert pieces.reference_split("x<|e|><|e|>y<|e|>", ["<|e|>", "<|e|><|e|>"]) == [
        "x",
        "<|e|><|e|>",
        "y",
        "<|e|>",
    ]
    assert pieces.reference_split("a(a|b)*c", ["(a|b)*"]) == ["a", "(a|b)*", "c"]
    assert pieces.reference_split("", [EOT]) == []
    assert pieces.reference_split("no specials", []) == ["no specials"]


def test_a_pretokenize_fault_is_found_and_narrowed_to_a_few_pretokens():
    text = "Once upon a time, snake_case and more words after it." * 3 + EOT + "the end"
    found = diagnose.first_difference_in_pieces(_Bpe(_re_pretokenize), text, [EOT])
    assert found.stage == "pretokenize" and found.where == "pretokenize"
    assert "_" in found.given and len(found.given) < 20, found
    assert found.expected == pieces.reference_pretokenize(found.given)
    words = explain_finding(found, "encode")
    assert words.startswith("The fault is in pretokenize, not encode.\nYour pretokenize splits ")
    assert "differently" in words


def test_the_special_token_split_comes_before_pretokenize():
    def unescaped(text, specials):
        return [p for p in re.split("(" + "|".join(specials) + ")", text) if p]

    found = diagnose.first_difference_in_pieces(_Bpe(_re_pretokenize, unescaped), f"a{EOT}b_c", [EOT])
    assert found.stage == "split_on_special_tokens"
    assert found.expected == ["a", EOT, "b_c"]
    assert explain_finding(found).startswith(
        "Your split_on_special_tokens cuts out the special tokens differently"
    )


def test_an_unescaped_split_is_named_and_its_cut_known():
    def unescaped(text, specials):
        return [p for p in re.split("(" + "|".join(specials) + ")", text) if p]

    text = f"a{EOT}b"
    found = diagnose.first_difference_in_pieces(_Bpe(split=unescaped), text, [EOT])
    cut = diagnose.unescaped_cut(text, [EOT], found.got)
    assert cut == [
        ("a", False),
        ("<", True),
        ("|", False),
        ("endoftext", True),
        ("|", False),
        (">", True),
        ("b", False),
    ]
    assert "Likely cause: special tokens used as a regex without escaping." in explain_finding(found)
    assert diagnose.unescaped_cut(text, [EOT], reference_split(text, [EOT])) is None


def test_a_case_blind_split_is_found_where_its_pieces_alone_agree():
    def any_case(text, specials):
        pattern = "(" + "|".join(re.escape(s) for s in specials) + ")"
        return [p for p in re.split(pattern, text, flags=re.IGNORECASE) if p]

    text = EOT.upper()  # one piece, cut out or not: the list alone cannot tell
    assert any_case(text, [EOT]) == reference_split(text, [EOT])
    found = diagnose.first_difference_in_pieces(_Bpe(split=any_case), text, [EOT])
    assert found.stage == "split_on_special_tokens" and found.got == [" ", text, " "]
    assert "Likely cause: special tokens matched in any case." in explain_finding(found)
    assert diagnose.first_difference_in_pieces(_Bpe(), text, [EOT]) is None
    assert diagnose.case_blind_cut(f"a{text}b", [EOT]) == [("a", None), (text, EOT), ("b", None)]


def test_a_respelling_keeps_the_cuts_and_overlaps():
    specials = ["<|a|>", "<|a|><|a|>", "[x]"]
    text = "x<|a|><|a|><|a|>y[x]z"
    respell = diagnose.respelling(specials, text)
    assert not any(c in "<|>[]" for s in respell.values() for c in s)
    again = diagnose.respelled_text(text, specials, respell)
    back = {v: k for k, v in respell.items()}
    new = [respell[s] for s in specials]
    assert [back.get(p, p) for p in reference_split(again, new)] == reference_split(text, specials)
    assert diagnose.respelling(specials, again) is None  # a text holding the respelling has none


def test_right_pieces_give_no_finding():
    assert diagnose.first_difference_in_pieces(_Bpe(), f"Hello{EOT} snake_case ² ½", [EOT]) is None


def test_a_special_token_held_twice_is_said_in_words():
    expected = {i: bytes([i]) for i in range(256)} | {256: EOT.encode()}
    got = expected | {257: EOT.encode()}
    found = diagnose.first_difference_in_specials(expected, got, [EOT, EOT], "train_bpe")
    assert (found.stage, found.got) == ("special_twice", [256, 257])
    words = explain_finding(found, "train_bpe")
    assert words.startswith(f"Your vocab holds the special token {EOT!r} twice (ids 256, 257)")
    assert "counts once" in words and "stopped after" not in words


def test_a_special_token_without_an_id_is_said_in_words():
    expected = {i: bytes([i]) for i in range(256)} | {256: EOT.encode(), 257: (EOT + EOT).encode()}
    got = {i: bytes([i]) for i in range(256)} | {256: EOT.encode()}
    found = diagnose.first_difference_in_vocab(expected, got, [EOT, EOT + EOT], "BPETokenizer.__init__")
    assert (found.stage, found.given, found.expected) == ("special_missing", EOT + EOT, 257)
    words = explain_finding(found, "save")
    assert words.splitlines()[0] == "The fault is in BPETokenizer.__init__, not save."
    assert f"The special token {EOT + EOT!r} never got an id" in words
    assert "longest one wins" not in words


def test_a_vocab_layout_fault_names_the_first_wrong_id():
    expected = {i: bytes([i]) for i in range(256)} | {256: EOT.encode(), 257: b"th"}
    got = dict(expected) | {257: b"he"}
    found = diagnose.first_difference_in_vocab(expected, got, [EOT], "BPETokenizer.__init__")
    assert (found.stage, found.given, found.expected, found.got) == ("vocab_layout", 257, b"th", b"he")


def test_the_cause_is_data_on_the_failure_and_in_the_record():
    finding = Finding("special_missing", "BPETokenizer.__init__", EOT, 256, None)
    failure = diagnosed(finding, "encode('x') is wrong.", "encode")
    assert failure.cause == {
        "key": "special_missing",
        "where": "BPETokenizer.__init__",
        "summary": f"The special token {EOT!r} never got an id",
    }
    assert str(failure).endswith("\nencode('x') is wrong.")

    class Item:
        nodeid = "test_part3.py::test_x"

    class Report:
        passed, skipped, duration, user_properties = False, False, 0.1, []

    with pytest.raises(AssertionError) as excinfo:
        raise failure

    class Call:
        when = "call"

    call = Call()
    call.excinfo = excinfo
    rec = record(Item(), Report(), call, "")
    assert rec["status"] == "failed" and rec["cause"]["key"] == "special_missing"


def _scored(number: str, cause: dict, feedback: str, status: str = "failed") -> scoring.Scored:
    entry = Entry(
        f"test_part3.py::test_{number.replace('.', '_')}", number, f"test {number}", 3, 2, "visible"
    )
    return scoring.Scored(entry, status, 0 if status == "failed" else 2, feedback, "", 0.1, {}, cause=cause)


def test_one_cause_is_named_once_and_an_unproven_one_charges_every_test():
    cause = {
        "key": "special_missing",
        "where": "BPETokenizer.__init__",
        "summary": "The special token '<|x|>' never got an id",
    }
    scored = charge(
        [
            _scored("3.2", cause, "The special token '<|x|>' never got an id: ... (the full story)"),
            _scored("3.4", {}, "", status="passed"),
            _scored(
                "3.5", cause, "The fault is in BPETokenizer.__init__, not save.\n... (the same story again)"
            ),
            _scored(
                "3.9",
                {"key": "pretokenize", "where": "pretokenize", "summary": "Your pretokenize ..."},
                "other",
            ),
        ]
    )
    results = results_json(scored, execution_time=1.0, isolation="test")
    by_number = {t["number"]: t for t in results["tests"]}
    assert "the full story" in by_number["3.2"]["output"]
    # Not proven to be that fault alone: charged, and its own words say what differs there.
    assert (
        by_number["3.5"]["output"]
        == "The fault is in BPETokenizer.__init__, not save.\n... (the same story again)"
    )
    assert by_number["3.5"]["extra_data"]["cause"] == {
        "key": "special_missing",
        "where": "BPETokenizer.__init__",
    }
    assert by_number["3.9"]["output"] == "other"  # another cause: its own story
    assert results["score"] == 2  # not proven to be that fault alone: each failed test costs its points
    page = terminal(scored, width=200)
    assert "same cause as 3.2" not in page and page.count("the full story") == 1


# ------------------------------------------------------------------ catalogue rows, graded jailed


ROWS = {
    # row: (rubric tests to grade, {number: (keeps its points?, sentences that must appear, that must not)})
    "pretokenize_with_re": (
        "test_pretokenize or test_encode_matches_trusted_property",
        {
            "2.2": (False, ["Your pretokenize splits"], []),
            # A partial grade charges as the full one (grader/partial.py): 2.8, 2.14 and 3.8 reach
            # the cap first, so 3.9 keeps its points here too.
            "3.9": (
                True,
                ["Same cause as 2.2 (your pretokenize splits", "not charged here"],
                ["LOWEST"],
            ),
        },
    ),
    "pretokenize_whole_pieces": (
        "test_pretokenize or test_training_speed",
        {
            # the gate, given the right pieces, passes: the fault is 2.2's, charged there once
            "E.1": (
                True,
                ["Same cause as 2.2 (your pretokenize splits", "not charged here"],
                ["recount"],
            )
        },
    ),
    "train_duplicate_specials": (
        "test_train_argument_errors or test_train_regex_metacharacter_specials",
        {
            "2.11": (
                False,
                [f"Your vocab holds the special token {EOT!r} twice", "counts once"],
                ["You stopped after"],
            ),
            "2.6": (True, [], []),
        },
    ),
    "special_not_appended": (
        "test_encode_special_tokens or test_save_and_load_round_trip or test_saved_files_are_gpt2_format",
        {
            "3.2": (
                False,
                ["never got an id", "your tokenizer passes this test"],
                ["longest one wins", "Same cause"],
            ),
            "3.5": (False, ["Same cause as 3.2", "charged here, up to 10 points"], []),
            "3.7": (False, ["Same cause as 3.2"], []),
        },
    ),
    "iterable_chunks_alone": (
        "test_encode_iterable",
        {
            "3.10": (False, ["Hint: after each chunk, yield only what no later text can change"], []),
            "E.3": (True, ["Not charged here: your ids differ", "see 3.10"], []),
        },
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("row", sorted(ROWS))
def test_catalogue_row_reads_its_diagnosed_cause(row, tmp_path):
    import catalogue
    import jail

    tests, expect = ROWS[row]
    sub = catalogue.materialize(catalogue.by_name(row), tmp_path / "submission")
    done = jail.grade_in_jail(sub, tmp_path / "out", tests=tests)
    assert done.returncode == 0 and done.results, done.stderr[-3000:]
    by_number = {t["number"]: t for t in done.results["tests"]}
    for number, (keeps, present, absent) in expect.items():
        t = by_number[number]
        assert (t["score"] == t["max_score"]) == keeps, (number, t["output"][:1500])
        for sentence in present:
            assert sentence in t["output"], (number, sentence, t["output"][:1500])
        for sentence in absent:
            assert sentence not in t["output"], (number, sentence, t["output"][:1500])


@pytest.mark.slow
def test_the_encode_speed_gate_grades_speed_and_only_notes_wrong_ids(tmp_path):
    """The reference never applying its first merge: its ids spell the text, split differently,
    as fast as ever. E.2 keeps its points and points to 3.9, which takes them."""
    import catalogue
    import jail

    entry = catalogue.Entry(
        name="skips_first_merge",
        kind="mutant",
        why="encode never applies merge #0",
        build={
            "replace": [
                {
                    "file": "bpe/tokenizer.py",
                    "old": "            if key not in self._pair_rank:",
                    "new": "            if key not in self._pair_rank and rank != 0:",
                }
            ]
        },
        select="",
        fails=(),
    )
    sub = catalogue.materialize(entry, tmp_path / "submission")
    done = jail.grade_in_jail(sub, tmp_path / "out", tests="test_encode_speed or test_encode_basic")
    assert done.returncode == 0 and done.results, done.stderr[-3000:]
    by_number = {t["number"]: t for t in done.results["tests"]}
    speed, basic = by_number["E.2"], by_number["3.1"]
    assert speed["score"] == speed["max_score"], speed["output"][:1500]
    assert "Not charged here: your ids differ" in speed["output"] and "see 3.9" in speed["output"]
    assert basic["score"] == 0, basic["output"][:1500]
