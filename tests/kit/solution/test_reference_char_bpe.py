"""Part 1 of the reference: CharBPE and merge, checked against hand traces."""

import json

import pytest
import reference_bpe
from hypothesis import given, settings
from hypothesis import strategies as st

bpe = reference_bpe.load()
SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=60)


def test_merge_is_left_to_right_and_non_overlapping():
    assert bpe.merge([1, 1, 1], (1, 1), 9) == [9, 1]
    assert bpe.merge([1, 1, 1, 1], [1, 1], 9) == [9, 9]
    assert bpe.merge([1, 2, 3, 1, 2], (1, 2), 7) == [7, 3, 7]
    ids = [5, 6]
    assert bpe.merge(ids, (5, 6), 0) == [0] and ids == [5, 6]  # input untouched


def test_trace_low_lower_lowest():
    t = bpe.CharBPE.train("low lower lowest", 4)
    assert t.vocab[0] == "\ufffd"
    assert t.vocab[1:9] == sorted(set("low lower lowest"))
    assert [t.vocab[new] for _, new in t.merges] == ["lo", "low", " low", " lowe"]
    assert [[t.vocab[a], t.vocab[b]] for (a, b), _ in t.merges] == [
        ["l", "o"],
        ["lo", "w"],
        [" ", "low"],
        [" low", "e"],
    ]
    ids = t.encode("low lower lowest")
    assert len(ids) == 6 and t.decode(ids) == "low lower lowest"


def test_ties_go_to_the_earliest_first_occurrence():
    # "cd" and "ab" both occur twice; "cd" occurs first.
    t = bpe.CharBPE.train("cdab cdab", 1)
    assert t.vocab[t.merges[0][1]] == "cd"


def test_stops_when_no_pair_repeats_and_never_merges_newlines():
    assert bpe.CharBPE.train("abcdef", 10).merges == []
    t = bpe.CharBPE.train("a\na\na\n", 10)
    assert all("\n" not in t.vocab[new] for _, new in t.merges)


def test_unknown_characters_encode_to_zero_and_unknown_ids_are_rejected():
    t = bpe.CharBPE.train("aaa", 1)
    assert t.encode("zab") == [0, t.encode("a")[0], 0]
    for bad in (len(t.vocab), -1, True, "1"):
        with pytest.raises(ValueError, match=repr(bad).strip("'")):
            t.decode([bad])


@pytest.mark.parametrize("text", [b"abc", None, ["a"]])
def test_text_must_be_str(text):
    with pytest.raises(TypeError):
        bpe.CharBPE.train(text, 1)


@pytest.mark.parametrize("n", [-1, 1.0, True, "2", None])
def test_num_merges_must_be_a_non_negative_int(n):
    with pytest.raises(ValueError):
        bpe.CharBPE.train("aaaa", n)


@SETTINGS
@given(st.text(alphabet="ab \nxé", max_size=60), st.integers(0, 8))
def test_state_round_trips_through_json(text, n):
    t = bpe.CharBPE.train(text, n)
    again = bpe.CharBPE(**json.loads(json.dumps(t.state())))
    assert again.state() == t.state()
    assert again.encode(text) == t.encode(text)
    assert t.decode(t.encode(text)) == text
