"""One cause, one charge (grader/charges.py): a proven fault costs at most CAP points, a second
fault is charged on its own, and the report names the cause once, then "same cause as N"."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from grader import scoring
from grader.charges import CAP, charge
from grader.checks.merge_fault import TIE_BREAK, only_ties_differ
from grader.oracles import trusted
from grader.oracles.trainer import PairCounts, Replay, Rules, train
from grader.report import results_json, terminal
from grader.rubric import Entry
from grader.terms import Status

CRASH = {
    "key": "raised ValueError at bpe/training.py:12",
    "where": "bpe/training.py:12",
    "crash": True,
    "one_fault": True,
    "summary": "your code raised ValueError at bpe/training.py:12",
}
UNPROVEN = {"key": "pretokenize", "where": "pretokenize", "summary": "your pretokenize differs"}


def _failed(number: str, points: int, cause: dict, status: str = "failed") -> scoring.Scored:
    entry = Entry(
        f"test_part2.py::test_{number.replace('.', '_')}", number, f"test {number}", 2, points, "visible"
    )
    score = points if status == "passed" else 0
    return scoring.Scored(entry, status, score, f"the full story of {number}", "", 0.1, {}, cause=dict(cause))


def _lost(scored) -> int:
    return sum(s.entry.points - s.score for s in scored)


def test_a_proven_fault_costs_at_most_the_cap_its_first_test_in_full():
    scored = charge([_failed(f"2.{k}", 3, TIE_BREAK) for k in range(3, 10)])
    assert _lost(scored) == 9 <= CAP  # 3 + 3 + 3; a fourth test would pass the cap
    assert [s.status for s in scored] == ["failed"] * 3 + [Status.SAME_CAUSE] * 4
    assert all(s.same_as == "2.3" for s in scored[1:]) and scored[0].same_as is None
    big = charge([_failed("2.3", 12, TIE_BREAK), _failed("2.4", 2, TIE_BREAK)])
    assert _lost(big) == 12  # the test that names the fault is charged in full, even past the cap


def test_an_unproven_cause_is_charged_in_every_test_and_never_called_the_same():
    scored = charge([_failed(f"2.{k}", 3, UNPROVEN) for k in range(3, 10)])
    assert _lost(scored) == 21 and all(s.status == "failed" for s in scored)
    assert [s.same_as for s in scored] == [None] * 7  # each keeps its own feedback: what differs there
    half = charge(
        [
            _failed("2.3", 5, TIE_BREAK),
            *(_failed(f"2.{k}", 5, {**TIE_BREAK, "one_fault": False}) for k in (4, 5)),
        ]
    )
    assert (
        _lost(half) == 15
    )  # a test where the fault is not proven alone is charged: a second bug may hide there
    assert [s.same_as for s in half] == [None, None, None]
    results = results_json(half, execution_time=1.0, isolation="test")
    assert all("Same cause" not in t["output"] for t in results["tests"])


def test_the_same_crash_at_the_same_line_costs_at_most_the_cap():
    scored = charge([_failed(f"2.{k}", 3, CRASH) for k in range(3, 10)])
    assert _lost(scored) == 9 and [s.same_as for s in scored] == [None] + ["2.3"] * 6
    elsewhere = {**CRASH, "key": "raised ValueError at bpe/training.py:40"}
    other = charge([_failed("2.3", 6, CRASH), _failed("2.4", 6, elsewhere), _failed("2.5", 6, CRASH)])
    assert _lost(other) == 12  # another line is another fault; the third test would pass the cap
    out = {t["number"]: t["output"] for t in results_json(other, execution_time=1.0, isolation="t")["tests"]}
    assert out["2.5"].startswith("The same error as 2.3 (your code raised ValueError at bpe/training.py:12)")
    assert "at most 10 points" in out["2.3"]


def test_a_second_fault_is_charged_on_its_own():
    scored = charge(
        [
            *(_failed(f"2.{k}", 3, TIE_BREAK) for k in range(3, 10)),
            _failed("2.19", 2, CRASH),
            _failed("3.4", 2, {}),
        ]
    )
    assert _lost(scored) == 9 + 2 + 2
    assert scored[7].same_as is None and scored[8].same_as is None


def test_the_report_names_the_cause_once_then_one_line_each():
    scored = charge([_failed(f"2.{k}", 3, TIE_BREAK) for k in range(3, 7)] + [_failed("2.19", 2, CRASH)])
    results = results_json(scored, execution_time=1.0, isolation="test")
    out = {t["number"]: t for t in results["tests"]}
    assert out["2.3"]["output"].startswith("the full story of 2.3\n\nThe same fault fails 2.4, 2.5, 2.6 too")
    assert out["2.4"]["output"] == (
        "Same cause as 2.3 (ties broken another way in train_bpe); charged here, up to 10 points for this fault in all."
    )
    assert out["2.6"]["output"] == (
        "Same cause as 2.3 (ties broken another way in train_bpe); not charged here: one fault costs at most 10 points."
    )
    assert out["2.6"]["score"] == 3 and out["2.6"]["extra_data"]["charged"] is False
    assert out["2.4"]["extra_data"] == {
        "cause": {"key": "tie-break", "where": "train_bpe"},
        "same_cause_as": "2.3",
        "charged": True,
    }
    assert results["score"] == 3  # 2.6 keeps its points; 2.3, 2.4, 2.5 and 2.19 lose theirs
    page = terminal(scored, width=80)
    assert page.count("the full story of 2.3") == 1 and all(len(line) <= 80 for line in page.splitlines())
    assert "--- 2.6: same cause as 2.3 (ties broken another way in train_bpe); not charged" in page


def test_only_ties_differ_is_proven_by_a_replay():
    text = "hug pug pun bun hugs " * 3 + "ab ab cd cd " * 2
    _, right = train(text, 280, [])
    _, smaller = train(text, 280, [], Rules(tie_break="smaller_bytes"))
    assert smaller != right
    assert only_ties_differ(trusted, text, [], smaller, len(right), stops_early=False)
    assert only_ties_differ(trusted, text, [], right, len(right), stops_early=False)
    assert not only_ties_differ(
        trusted, text, [], smaller[:-1], len(right), stops_early=False
    )  # one merge short
    rare = [(b"a", b"b"), *smaller[1:]]  # (b'a', b'b') occurs 4 times; (b'u', b'g') 9 times
    assert not only_ties_differ(trusted, text, [], rare, len(right), stops_early=False)


def test_the_test_that_names_a_fault_lists_the_others_and_the_cap():
    scored = charge([_failed(f"2.{k}", 3, TIE_BREAK) for k in range(3, 7)] + [_failed("2.19", 2, CRASH)])
    out = {t["number"]: t["output"] for t in results_json(scored, execution_time=1.0, isolation="t")["tests"]}
    assert out["2.3"].endswith("The same fault fails 2.4, 2.5, 2.6 too; it costs at most 10 points in all.")
    assert out["2.19"] == "the full story of 2.19"  # its own cause, no other test shares it


def test_the_terminal_says_alike_same_cause_lines_once_for_all():
    scored = charge([_failed(f"2.{k}", 3, TIE_BREAK) for k in range(3, 9)])
    page = terminal(scored, width=80)
    assert "--- 2.4, 2.5: same cause as 2.3 (ties broken another way in train_bpe); charged" in page
    assert "--- 2.6, 2.7, 2.8: same cause as 2.3 (ties broken another way in train_bpe); not" in page


def test_a_merge_count_fault_is_the_only_fault_when_the_merges_are_a_prefix():
    from grader.checks.merge_fault import merge_count_fault, vocab_follows

    expected = [(b"a", b"b"), (b"ab", b"c"), (b"d", b"e")]
    assert merge_count_fault(expected, expected[:2])["key"] == "merge count -1"
    assert (
        merge_count_fault(expected, [*expected, (b"x", b"y")])["summary"]
        == "train_bpe makes 1 merge(s) too many"
    )
    assert merge_count_fault(expected, [expected[1], expected[0]]) is None  # same count: not this fault
    assert merge_count_fault(expected, [(b"x", b"y")]) is None  # not a prefix: another fault
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"<|e|>", 257: b"ab", 258: b"abc"}
    assert vocab_follows(trusted, vocab, ["<|e|>"], expected[:2])
    assert not vocab_follows(
        trusted, {**vocab, 256: b"ab", 257: b"<|e|>"}, ["<|e|>"], expected[:2]
    )  # special last
    assert vocab_follows(
        trusted, {**vocab, 256: b"ab", 257: b"<|e|>"}, ["<|e|>"], expected[:2], contract="cs336"
    )


def test_past_the_cap_no_later_test_is_charged_even_a_smaller_one():
    scored = charge(
        [
            _failed("2.4", 2, TIE_BREAK),
            _failed("2.5", 2, TIE_BREAK),
            _failed("2.9", 3, TIE_BREAK),
            _failed("2.13", 4, TIE_BREAK),
            _failed("2.16", 1, TIE_BREAK),
        ]
    )
    assert [s.status for s in scored] == ["failed"] * 3 + [Status.SAME_CAUSE] * 2 and _lost(scored) == 7


def test_encode_merged_in_another_order_is_told_from_other_encode_faults():
    from grader.checks.encoding_check import TokenizerFacts, merged_in_another_order

    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]
    facts = TokenizerFacts.of(vocab, ["<|e|>"], merges)
    eot = facts.id_of(b"<|e|>")
    # 'abc': by rank a+b first, then ab+c -> [258]. Merging b+c first gives [a, bc]: complete, other order.
    assert merged_in_another_order(facts, "abc<|e|>", [97, 257, eot])
    assert not merged_in_another_order(facts, "abc<|e|>", [97, 98, 99, eot])  # stopped early: not merged
    assert not merged_in_another_order(facts, "abc<|e|>", [256, 99])  # the special token lost
    assert not merged_in_another_order(facts, "ab c", [256, 32, 99, 99])  # an extra token: loses no text
    assert not merged_in_another_order(TokenizerFacts.of(vocab, []), "abc", [97, 257])  # no merges known


def test_merges_that_are_exactly_a_classic_mistakes_are_that_one_fault():
    from grader.bpe_facts import golden
    from grader.checks.merge_fault import mistake_fault

    diagnostics = golden.TrainCase(golden.root("public"), "tiny_words").diagnostics()
    wrong = diagnostics.mistakes["no_pretokenize"]
    assert mistake_fault(diagnostics, wrong)["key"] == "mistake no_pretokenize"
    assert mistake_fault(diagnostics, wrong[:-1]) is None  # all of them, or it is not that mistake alone


def test_special_tokens_counted_as_text_are_the_not_split_mistakes_fault():
    from grader.checks.merge_fault import learned, specials_counted_fault
    from grader.oracles.trainer import pretokens

    text = "ab<|x|>ab <|y|><|y|>cd <|x|>"
    specials = ["<|x|>", "<|y|>"]
    counts = pretokens(text, specials)
    for special in ("<|x|>", "<|y|>", "<|y|>", "<|x|>"):  # each one in the text, counted as text too
        counts.update(pretokens(special, []))
    wrong = learned(trusted, counts, 6)
    cause = specials_counted_fault(trusted, text, specials, wrong, 6)
    assert cause["key"] == "mistake specials_not_split" and cause["one_fault"]
    assert (
        specials_counted_fault(trusted, text, specials, learned(trusted, pretokens(text, specials), 6), 6)
        is None
    )
    assert specials_counted_fault(trusted, "no special here", specials, wrong, 6) is None


def test_a_trainers_own_unescaped_regex_is_the_stored_mistakes_fault():
    import regex

    from grader.checks.merge_fault import learned, unescaped_fault
    from grader.oracles.trainer import pretokens

    text = "ab<|x|>ab x<|x|>cd|ab>"
    dropped = pretokens("", [])
    for piece in regex.split("<|x|>", text):
        dropped.update(pretokens(piece, []))
    wrong = learned(trusted, dropped, 5)
    assert unescaped_fault(trusted, text, ["<|x|>"], wrong, 5)["key"] == "mistake specials_unescaped"
    assert (
        unescaped_fault(trusted, text, ["<|x|>"], learned(trusted, pretokens(text, ["<|x|>"]), 5), 5) is None
    )


def test_a_check_of_the_first_merges_names_a_tie_break_too():
    from grader.checks.merge_fault import first_merges_fault
    from grader.oracles.trainer import Replay

    text = "hug pug pun bun hugs " * 3 + "ab ab cd cd " * 2
    _, right = train(text, 262, [])
    _, smaller = train(text, 262, [], Rules(tie_break="smaller_bytes"))
    replay, steps = Replay(text, []), []
    for pair in right:  # what `make fixtures` stores: the counts at each step, after the expected merges
        counts = replay.counts()
        top = max(counts.values())
        steps.append(golden_step(counts, top))
        replay.apply(pair)

    diagnostics = SimpleNamespace(steps=steps, mistakes={})
    assert first_merges_fault(trusted, text, [], right, smaller, diagnostics)["key"] == "tie-break"
    assert first_merges_fault(trusted, text, [], right, [(b"a", b"b"), *smaller[1:]], diagnostics) is None


def golden_step(counts, top):
    from grader.bpe_facts.golden import Step

    tied = sum(n == top for n in counts.values())
    return Step(top, tied, max((n for n in counts.values() if n < top), default=0), dict(counts))


def test_one_merge_too_many_per_special_token_is_one_fault_whatever_their_number():
    from grader.checks.merge_fault import merge_count_fault

    expected = [(b"a", b"b"), (b"ab", b"c")]
    one = merge_count_fault(expected[:1], expected, n_specials=1)
    two = merge_count_fault([], expected, n_specials=2)
    assert one["key"] == two["key"] and "vocab_size" in one["summary"]
    assert merge_count_fault(expected[:1], expected, n_specials=2)["key"] == "merge count +1"


def test_a_tie_break_is_proven_only_when_the_trainer_counts_right():
    """A cut at an unlisted <|endoftext|> moves only tied pairs here, so the replay alone takes it
    for a tie-break; the trainer, asked once more (tie_probe.py), shows its counts differ."""
    from grader.bpe_facts.golden import first_difference
    from grader.checks.tie_probe import counts_confirmed
    from grader.oracles.trainer import read_corpus

    eot, sep = "<|endoftext|>", "<|chunk|>"
    # <|endoftext|> only after a letter or <|pad|>: there a cut before it moves only tied pairs
    # (2.16's corpus also puts it where a cut splits a pre-token, which no replay takes for ties).
    text = "".join(f"the end{eot}<|pad|>the start<|pad|>{eot} is text<|pad|>\n" for _ in range(4))

    def ties_other_way(path, size):
        return train(read_corpus(path), size, [], Rules(tie_break="smaller_bytes"))[1]

    def cuts_at_eot(path, size):  # each chunk pre-tokenized alone: a special token between them
        return train(read_corpus(path).replace(eot, sep + eot), size + 1, [sep])[1]

    _, right = train(text, 280, [])
    for trainer, counts_right in ((ties_other_way, True), (cuts_at_eot, False)):
        got = trainer_on(trainer, text)
        assert got != right and only_ties_differ(trusted, text, [], got, len(right), stops_early=False)
        k = first_difference(right, got)
        assert counts_confirmed(trusted, text, [], got, right, k, trainer) is counts_right, trainer.__name__


def test_counts_wrong_only_on_words_that_repeat_a_byte_are_one_fault():
    """A trainer that counts a pair once per word ("aaaa" holds (a, a) once) is right on every word
    where no token can meet itself: asked again on the test's text with those words respelled
    (repeat_probe.py), it learns the contract's merges, which proves the fault alone. Ties broken
    another way, a pattern ported to `re`, a stripped text, a file read line by line or cut at
    fixed offsets show on that text too: no such proof, alone or beside the count fault."""
    import itertools

    from grader.bpe_facts import golden
    from grader.checks.repeat_probe import repeats_fault, taken_out, without_repeats
    from grader.oracles.trainer import greedy, pretokens, read_corpus

    class OncePerWord(Replay):
        def counts(self):
            counts = {}
            for tokens, freq in self.words:
                for pair in dict.fromkeys(itertools.pairwise(tokens)):
                    counts[pair] = counts.get(pair, 0) + freq
            return counts

    def trainer(read=read_corpus, rules=None, once=False):
        def train_on(path, size):
            text = read(path)
            if once:
                return list(greedy(OncePerWord(text, [eot]), size - 257))
            return train(text, size, [eot], rules or Rules())[1]

        return train_on

    def lines(path):  # each line pre-tokenized alone: a special token between them
        return sep.join(read_corpus(path).splitlines(keepends=True))

    def quarters(path):  # cut at fixed offsets, whatever is there
        text = read_corpus(path)
        return sep.join(text[i : i + len(text) // 4 + 1] for i in range(0, len(text), len(text) // 4 + 1))

    eot, sep = "<|endoftext|>", "<|endoftext|>"
    strip = lambda path: read_corpus(path).strip()  # noqa: E731
    for case, train_on, proven in (
        ("tiny_words", trainer(once=True), True),
        ("early_stop", trainer(once=True), True),
        ("tiny_words", trainer(rules=Rules(tie_break="smaller_bytes")), False),
        ("unicode_numbers", trainer(rules=Rules(pretokenize="re")), False),
        ("exact_text", trainer(read=strip), False),
        ("exact_text", trainer(read=strip, once=True), False),
        ("newlines_cr", trainer(read=lines), False),
        ("newlines_cr", trainer(read=lines, once=True), False),
        ("tiny_words", trainer(read=quarters), False),
    ):
        text = golden.TrainCase(golden.root("public"), case).corpus_text()
        assert trainer_on(train_on, text, 300) != train(text, 300, [eot])[1], case  # the test fails
        fault = repeats_fault(trusted, text, [eot], 300, train_on, stops_early=False)
        assert (fault is not None and fault["key"] == "a token meets itself") is proven, (case, proven)

        probe, words = without_repeats(trusted, text, [eot]), pretokens(text, [eot])
        assert len(probe) == len(text) and len(probe.encode()) == len(text.encode())  # every offset kept
        left = pretokens(probe, [eot])
        assert not any(taken_out(w) for w in left if w not in words)  # nothing respelled has a square
        assert {w for w in words if not taken_out(w)} <= set(left)  # every other word kept

    # Where no token can meet itself: "the" and "people" are kept, "book" and "abab" respelled;
    # whitespace, punctuation, contractions and the text's first and last words are kept anyway.
    assert [taken_out(w.encode()) for w in ("the", " people", " book", "abab", "  ", "!!", "'ll")] == [
        False,
        False,
        True,
        True,
        False,
        False,
        False,
    ]
    assert (
        without_repeats(trusted, "book, the book  it'll abab!! end", [eot])
        == "book, the ABCD  it'll ABCD!! end"
    )

    # A text of fewer pairs may run out of them: stopping early is then asked only of a test that
    # asks it itself (2.10), not of a trainer that never stops, for this test.
    def never_stops(path, size):
        merges = trainer(once=True)(path, size)
        return merges + [merges[-1]] * (size - 257 - len(merges))

    text = "hello world, all well\n" * 3
    assert (
        repeats_fault(trusted, text, [eot], 300, never_stops, stops_early=False)["key"]
        == "a token meets itself"
    )
    assert repeats_fault(trusted, text, [eot], 300, never_stops, stops_early=True) is None


def trainer_on(trainer, text: str, vocab_size: int = 280) -> list:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.txt"
        path.write_bytes(text.encode("utf-8"))
        return trainer(path, vocab_size)


def test_a_partial_grade_charges_a_capped_fault_where_a_full_grade_does():
    """grader/partial.py: the rubric's earlier tests are graded too, the report keeps the asked ones."""
    from grader.partial import charged_as_in_full
    from grader.scoring import score

    entries = [
        Entry(f"test_part2.py::test_{k}", f"2.{k}", f"test 2.{k}", 2, 3, "visible") for k in range(3, 9)
    ]
    records = [
        {
            "nodeid": e.id,
            "status": "failed",
            "feedback": "wrong",
            "output": "",
            "duration": 0.1,
            "cause": TIE_BREAK,
        }
        for e in entries
    ]
    full = {s.entry.number: s.score for s in score(entries, records)}
    asked = records[-2:]  # 2.7 and 2.8: alone, the first would name the fault and both would pay
    alone = score(entries, asked, partial_run=True)
    assert [s.score for s in alone] == [0, 0] != [full["2.7"], full["2.8"]]
    graded = []

    def grade_more(ids):
        graded.extend(ids)
        return [r for r in records if r["nodeid"] in ids]

    fixed, more = charged_as_in_full(alone, asked, entries, set(), grade_more)
    assert more == 4 and graded == [e.id for e in entries[:4]]
    assert [(s.entry.number, s.score, s.same_as) for s in fixed] == [("2.7", 3, "2.3"), ("2.8", 3, "2.3")]
    assert [full["2.7"], full["2.8"]] == [3, 3]
    out = {t["number"]: t["output"] for t in results_json(fixed, execution_time=1.0, isolation="t")["tests"]}
    assert out["2.7"].startswith("Same cause as 2.3 (ties broken another way in train_bpe); not charged")
    unproven = score(entries, [{**asked[0], "cause": UNPROVEN}], partial_run=True)
    assert charged_as_in_full(unproven, asked[:1], entries, set(), grade_more)[1] == 0  # nothing proven


def test_special_tokens_spelled_out_are_told_from_other_encode_faults():
    from grader.checks.encoding_check import TokenizerFacts, specials_spelled_out

    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    facts = TokenizerFacts.of(vocab, ["<|e|>"], [(b"a", b"b")])
    special = facts.id_of(b"<|e|>")
    spelled = [256, *b"<|e|>", 256]  # the special token in ordinary tokens, the rest right
    assert specials_spelled_out(trusted, facts, "ab<|e|>ab", spelled)
    assert not specials_spelled_out(trusted, facts, "ab<|e|>ab", [256, special, 256])  # no fault at all
    assert not specials_spelled_out(trusted, facts, "ab<|e|>ab", [97, 98, *b"<|e|>", 256])  # "ab" wrong too
    assert not specials_spelled_out(trusted, facts, "ab<|e|>ab", [256, *b"<|e|", 256])  # a byte lost


class _Tok:
    def __init__(self, vocab, appends):
        self.vocab, self.appends = vocab, appends

    def encode(self, text):
        raw = text.encode()
        if raw in self.vocab.values():
            return [min(i for i, t in self.vocab.items() if t == raw)]
        return [max(self.vocab) + 1] if self.appends else list(raw)


def test_a_special_token_never_appended_is_proven_by_grading_again_with_it():
    import pytest

    from grader.checks import appended
    from grader.checks.diagnose import Diagnosed

    vocab = {i: bytes([i]) for i in range(256)}

    def needs_it(given):  # fails unless the vocab it is given already holds the special token
        assert b"<|e|>" in given.values(), "encode('<|e|>') is wrong"

    def never(given):
        raise AssertionError("decode([7]) is wrong")

    def only_with_it(given):
        needs_it(given)
        raise AssertionError("decode([7]) is wrong")

    make = lambda given: _Tok(given, appends=False)  # noqa: E731
    with pytest.raises(Diagnosed) as proven:
        appended.graded(vocab, ["<|e|>"], make, needs_it)
    assert proven.value.cause["key"] == "special_missing" and proven.value.cause["one_fault"]
    assert "your tokenizer passes this test" in str(proven.value)
    with pytest.raises(AssertionError) as same:  # the special token has nothing to do with it
        appended.graded(vocab, ["<|e|>"], make, never)
    assert str(same.value) == "decode([7]) is wrong"
    with pytest.raises(AssertionError) as second:  # a second bug behind the first: charged
        appended.graded(vocab, ["<|e|>"], make, only_with_it)
    assert "another fault" in str(second.value) and not getattr(second.value, "cause", None)
    with pytest.raises(AssertionError) as appends:  # a tokenizer that appends it: not this fault
        appended.graded(vocab, ["<|e|>"], lambda given: _Tok(given, appends=True), needs_it)
    assert not isinstance(appends.value, Diagnosed)


def test_without_the_oracles_two_failures_say_the_final_grade_may_charge_less():
    from grader.charges import capped_elsewhere

    two = [_failed("2.3", 5, TIE_BREAK), _failed("2.4", 5, {})]
    assert capped_elsewhere(two, oracles=False)
    assert not capped_elsewhere(two, oracles=True)  # the kit and Gradescope prove it themselves
    assert not capped_elsewhere(two[:1], oracles=False)  # one failure: nothing to cap
    stubs = [_failed(f"2.{k}", 5, {}, status="not implemented") for k in (3, 4, 5)]
    assert not capped_elsewhere(stubs, oracles=False)  # a stub is not a fault a cap could cover


@settings(derandomize=True, database=None, deadline=None, max_examples=150)
@given(
    text=st.text(alphabet="ab c\nééa", max_size=60),
    picks=st.lists(st.integers(0, 10_000), max_size=25),
    strays=st.lists(st.sampled_from([(b"a", b"a"), (b"b", b"x"), (b"\xc3", b"\xa9")]), max_size=3),
)
def test_pair_counts_kept_up_to_date_equal_a_recount_after_every_merge(text, picks, strays):
    """PairCounts (what only_ties_differ reads) against Replay, which recounts the corpus each
    step: the same counts after every merge, including merges of pairs that are not there."""
    replay = Replay(text, [])
    kept = PairCounts([(list(tokens), freq) for tokens, freq in replay.words])
    for k, pick in enumerate(picks):
        counts = replay.counts()
        assert kept.counts == counts
        pairs = list(counts) + strays
        if not pairs:
            break
        pair = pairs[pick % len(pairs)] if k % 4 else max(counts or pairs, key=lambda p: counts.get(p, 0))
        replay.apply(pair)
        kept.apply(pair)
    assert kept.counts == replay.counts()
    assert kept.words == [tokens for tokens, _ in replay.words]


def test_a_crash_is_keyed_by_its_exception_and_the_line_that_raised_it():
    from grader.sandbox.remote_errors import rebuild_exception
    from grader.suite.outcome import cause_of

    info = {
        "type": "TypeError",
        "mro": ["builtins.TypeError", "builtins.Exception"],
        "message": "unhashable type: 'list'",
        "traceback": '  File "bpe/training.py", line 30, in train_bpe',
        "where": ["bpe/training.py", 30],
    }
    first = cause_of(rebuild_exception(info))
    assert first["key"] == "raised TypeError at bpe/training.py:30" and first["one_fault"] and first["crash"]
    assert cause_of(rebuild_exception({**info, "message": "another message"}))["key"] == first["key"]
    assert cause_of(rebuild_exception({**info, "where": ["bpe/training.py", 31]}))["key"] != first["key"]
    assert cause_of(rebuild_exception({**info, "type": "KeyError"}))["key"] != first["key"]
    assert cause_of(rebuild_exception({k: v for k, v in info.items() if k != "where"})) is None


def test_a_gate_is_not_charged_for_a_fault_an_earlier_test_charges():
    gate = _failed("E.1", 5, {**TIE_BREAK, "gate": True})
    scored = charge([_failed("2.3", 3, TIE_BREAK), gate])
    assert _lost(scored) == 3 and scored[1].status == Status.SAME_CAUSE and scored[1].same_as == "2.3"
    out = {t["number"]: t["output"] for t in results_json(scored, execution_time=1.0, isolation="t")["tests"]}
    assert "this test grades only what its name says" in out["E.1"]
    alone = charge([gate])  # no other test charges it: wrong merges are no training to time
    assert _lost(alone) == 5


def test_a_stop_where_the_best_pair_occurs_once_is_one_fault_on_every_case():
    from grader.bpe_facts import golden
    from grader.checks.merge_fault import STOPS_AT_ONCE, merge_count_fault, stops_at_once_fault

    keys = set()
    for name in ("early_stop", "exact_text", "newlines_cr"):
        case = golden.TrainCase(golden.root("public"), name)
        steps = case.diagnostics().steps
        k = next(i for i, step in enumerate(steps) if step.top < 2)
        assert stops_at_once_fault(case.merges, case.merges[:k], steps)["key"] == STOPS_AT_ONCE["key"]
        assert stops_at_once_fault(case.merges, case.merges[: k - 1], steps) is None  # stops elsewhere
        assert stops_at_once_fault(case.merges, case.merges, steps) is None
        wrong = [*case.merges[: k - 1], (b"\xff", b"\xfe")]
        assert stops_at_once_fault(case.merges, wrong, steps) is None  # a wrong merge: another fault
        keys.add(merge_count_fault(case.merges, case.merges[:k])["key"])
    assert len(keys) == 3  # counted alone, each case would be its own fault


def test_one_merge_too_many_without_stored_merges_is_proven_by_a_correct_trainer():
    from grader.bpe_facts import golden
    from grader.checks.merge_fault import SPECIALS_NOT_COUNTED, learned_on, specials_not_counted_fault
    from grader.oracles.trainer import initial_vocab

    text = (golden.root("public") / "corpora" / "tiny_words.txt").read_text(encoding="utf-8")
    specials = ["<|endoftext|>"]
    right = learned_on(trusted, text, specials, 1)
    vocab = initial_vocab(specials) | {257: right[0][0] + right[0][1]}
    fault = specials_not_counted_fault(trusted, text, specials * 2, 257, vocab, right)
    assert fault["key"] == SPECIALS_NOT_COUNTED["key"]
    wrong = [(b"\xff", b"\xfe")]
    wrong_vocab = initial_vocab(specials) | {257: wrong[0][0] + wrong[0][1]}
    assert (
        specials_not_counted_fault(trusted, text, specials, 257, wrong_vocab, wrong) is None
    )  # not its merge
    assert specials_not_counted_fault(trusted, text, specials, 257, initial_vocab(specials), right) is None


def test_the_indexed_trainer_is_right_unless_it_misses_the_pair_right_of_a_merge():
    from grader.bpe_facts import golden
    from grader.oracles.indexed import indexed_merges
    from grader.oracles.trainer import pretokens

    for name in ("tiny_words", "specials", "overlap"):
        case = golden.TrainCase(golden.root("public"), name)
        counts = pretokens(case.corpus_text(), case.special_tokens)
        limit = case.vocab_size - 256 - len(dict.fromkeys(case.special_tokens))
        assert indexed_merges(counts, limit) == case.merges
        wrong = indexed_merges(counts, limit, missing_right=True)
        assert wrong != case.merges and wrong == case.diagnostics().mistakes["index_missing_right"]
