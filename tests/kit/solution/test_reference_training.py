"""Part 2 of the reference: train_bpe agrees with an obviously correct trainer."""

import pytest
import reference_bpe
from hypothesis import given, settings
from hypothesis import strategies as st
from slow_trainer import slow_train_bpe

bpe = reference_bpe.load()
SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=80)
SPECIALS = ["<|eot|>", "<|a|>", "<|a|><|b|>"]

CORPORA = {
    "repeated_pairs": "aaaa aaa aaaaa abab ababab aaaa",
    "ties": "ab ba cd dc ab ba cd dc",
    "newlines_and_crlf": "one\r\ntwo\r\n\r\nthree\rfour\n\n\n  five  \n",
    "unicode": "naïve café 中文中文 😀😀 ü ü ü 12 123 1234 it's we'll they've",
    "punctuation": "!!! ??? ... --- ,,, ;;; !!! ??? ...",
    "specials": "low<|eot|>lower<|eot|>lowest<|a|><|b|>newest<|a|>widest<|eot|>",
}


def write(tmp_path, text: str):
    path = tmp_path / "corpus.txt"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("name", sorted(CORPORA))
@pytest.mark.parametrize("vocab_size", [260, 300])
def test_matches_slow_trainer_on_small_corpora(tmp_path, name, vocab_size):
    text = CORPORA[name]
    got = bpe.train_bpe(write(tmp_path, text), vocab_size, SPECIALS)
    assert got == slow_train_bpe(text, vocab_size, SPECIALS)


text_with_specials = st.lists(
    st.one_of(st.text(alphabet="aab b\n\r'lsé中1 .", max_size=12), st.sampled_from(SPECIALS)),
    max_size=12,
).map("".join)


@SETTINGS
@given(text=text_with_specials, extra=st.integers(0, 30))
def test_matches_slow_trainer_on_generated_text(tmp_path_factory, text, extra):
    path = write(tmp_path_factory.mktemp("c"), text)
    size = 256 + len(SPECIALS) + extra
    assert bpe.train_bpe(path, size, SPECIALS) == slow_train_bpe(text, size, SPECIALS)


def test_vocab_layout_and_early_stop(tmp_path):
    vocab, merges = bpe.train_bpe(write(tmp_path, "abab"), 1000, ["<|x|>", "<|y|>", "<|x|>"])
    assert [vocab[i] for i in range(256)] == [bytes([i]) for i in range(256)]
    assert vocab[256] == b"<|x|>" and vocab[257] == b"<|y|>"
    assert merges == [(b"a", b"b"), (b"ab", b"ab")]  # then no pair is left
    assert len(vocab) == 260 and vocab[258] == b"ab" and vocab[259] == b"abab"


def test_ties_prefer_the_lexicographically_greater_pair(tmp_path):
    _, merges = bpe.train_bpe(write(tmp_path, "ab cd"), 257, [])
    assert merges == [(b"c", b"d")]  # all pairs occur once; ("c", "d") is the greatest


def test_specials_are_never_merged_or_crossed(tmp_path):
    text = "ab<|eot|>ab<|eot|>ab"
    _vocab, merges = bpe.train_bpe(write(tmp_path, text), 300, ["<|eot|>"])
    assert merges == [(b"a", b"b")]
    assert all(b"<" not in a + b for a, b in merges)


def test_file_is_read_without_newline_translation(tmp_path):
    _, merges = bpe.train_bpe(write(tmp_path, "\r\r\r\r"), 257, [])
    assert merges == [(b"\r", b"\r")]


@pytest.mark.parametrize(
    ("size", "specials"), [(255, []), (256, ["<|eot|>"]), (300, [""]), (257, ["<|a|>", "<|b|>"])]
)
def test_bad_arguments_raise_value_error(tmp_path, size, specials):
    with pytest.raises(ValueError):
        bpe.train_bpe(write(tmp_path, "abc"), size, specials)


def test_missing_file_names_the_path(tmp_path):
    missing = tmp_path / "no_such_corpus.txt"
    with pytest.raises(FileNotFoundError, match=r"no_such_corpus\.txt"):
        bpe.train_bpe(str(missing), 300, [])


def test_invalid_utf8_names_the_path(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1\.txt"):
        bpe.train_bpe(path, 300, [])


@SETTINGS
@given(text=st.text(alphabet="ab \n", min_size=1, max_size=80), extra=st.integers(1, 12))
def test_matches_slow_trainer_on_runs_of_few_letters(tmp_path_factory, text, extra):
    # Runs like "aaaa" and "ababab" are where incremental pair counts go wrong.
    path = write(tmp_path_factory.mktemp("r"), text)
    assert bpe.train_bpe(path, 256 + extra, []) == slow_train_bpe(text, 256 + extra, [])
