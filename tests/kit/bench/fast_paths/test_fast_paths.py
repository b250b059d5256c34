"""The bench's pure-Python fast paths give exactly what the plain algorithms give.

``bench/fast_paths`` encodes a long pre-token by searching for its final
tokens (``pair_search``) instead of merging, merges long ones with a heap,
and pre-tokenizes with GPT-2's pattern in stdlib ``re``, its character
classes read from ``regex`` (``bmp_split``). All must be invisible: the same
ids as the reference's textbook merging, the same pre-tokens as ``regex``.
"""

import pytest
import reference_bpe
import regex
import replay_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import fast_paths

bpe = reference_bpe.load()
FastTokenizer, fast_train_bpe, fast_pretokenize = fast_paths.load(bpe)
SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=300)
FULL = regex.compile(bpe.GPT2_PATTERN)


def merge_loop(tok, raw: bytes) -> list[int]:
    """The reference's own merging (rank order, no search): what every fast path must match."""
    return bpe.tokenizer._merge_by_rank([tok._byte_ids[b] for b in raw], tok._pair_rank, tok._merged_id)


def replay(tok, raw: bytes) -> list[int]:
    return [tok._id_of[p] for p in replay_oracle.replay(tok.merges, raw)]


@st.composite
def tidy_merges(draw):
    """A merge list of the textbook kind, but random: parts made earlier, nothing made twice.

    Unlike a trainer's, such lists have tokens BPE can never output (improper
    tokens) and pairs that never meet: the search must reject both.
    """
    alphabet = [bytes([c]) for c in b"abcd"[: draw(st.integers(1, 4))]]
    tokens, merges = list(alphabet), []
    for _ in range(draw(st.integers(0, 30))):
        a, b = draw(st.sampled_from(tokens)), draw(st.sampled_from(tokens))
        if a + b not in tokens and len(a + b) <= 12:
            merges.append((a, b))
            tokens.append(a + b)
    vocab = {i: bytes([i]) for i in range(256)} | {256 + k: a + b for k, (a, b) in enumerate(merges)}
    return alphabet, FastTokenizer(vocab, merges)


@SETTINGS
@given(model=tidy_merges(), data=st.data())
def test_search_equals_merging_and_replaying_on_random_tidy_merges(model, data):
    alphabet, tok = model
    search = tok._searcher()
    assert search is not None
    for _ in range(5):
        raw = b"".join(data.draw(st.lists(st.sampled_from(alphabet), min_size=1, max_size=40)))
        want = merge_loop(tok, raw)
        assert want == replay(tok, raw)
        assert search.encode(raw) == want


def test_an_unreachable_token_is_never_output():
    # "abc" is made by ("a", "bc"), but "ab" forms first, so "bc" never does:
    # BPE of "abc" is ["ab", "c"], although "abc" is in the vocab.
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
    tok = FastTokenizer(vocab, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")])
    assert tok._searcher().encode(b"abc") == [256, ord("c")]
    assert tok.encode("abcabcabcabc") == [256, ord("c")] * 4
    assert tok._searcher().encode(b"xbc") == [ord("x"), 257]


@pytest.mark.parametrize(
    "merges",
    [
        [(b"bc", b"b"), (b"b", b"c")],  # uses "bc" before any merge makes it
        [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")],  # makes "abc" twice
    ],
    ids=["part-not-yet-made", "token-made-twice"],
)
def test_untidy_merge_lists_keep_the_merge_loop(merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for a, b in merges:
        if a + b not in vocab.values():
            vocab[len(vocab)] = a + b
    tok = FastTokenizer(vocab, merges)
    assert tok._searcher() is None
    for text in ["abcbcabcb" * 3, "bcb" * 40]:  # long enough to ask for the search
        assert tok.encode(text) == [
            i for pre in fast_pretokenize(text) for i in merge_loop(tok, pre.encode())
        ]


TRAINING_TEXT = (
    "the cat sat on the mat. the dog sat on the log!\n"
    "很久很久以前，森林里住着一只大象，大家都叫它豆豆。豆豆最喜欢和爸爸一起跳舞。\n"
    "naïve café, emoji 😀😀 and   spaces\t\ttabs, 12345 + 678\n"
) * 6


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    path = tmp_path_factory.mktemp("train") / "corpus.txt"
    path.write_bytes(TRAINING_TEXT.encode("utf-8"))
    vocab, merges = fast_train_bpe(path, 600, ["<|endoftext|>"])
    return FastTokenizer(vocab, merges, ["<|endoftext|>"])


@SETTINGS
@given(
    text=st.text(alphabet="很久以前森林里住着一只大象，。豆爸跳舞the cat sog!ï😀 \n12", max_size=60)
    | st.text(max_size=30)
)
def test_search_equals_merging_on_a_trained_vocab(trained, text):
    search = trained._searcher()
    for pre in fast_pretokenize(text):
        raw = pre.encode("utf-8")
        assert search.encode(raw) == merge_loop(trained, raw)


def test_the_fast_trainer_learns_the_references_merges(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(TRAINING_TEXT.encode("utf-8"))
    assert fast_train_bpe(path, 600, ["<|endoftext|>"]) == bpe.train_bpe(path, 600, ["<|endoftext|>"])


@SETTINGS
@given(
    text=st.text(alphabet="很久以前森林里住着一只大象，。豆爸跳舞the cat sog!ï😀 \n12", max_size=60)
    | st.text(alphabet=" a\n", min_size=60, max_size=400)
)
def test_fast_encoding_equals_the_references(trained, text):
    # The second kind makes pre-tokens over 64 bytes (runs of spaces or of "a"): the heap path.
    reference = bpe.BPETokenizer(trained.vocab, trained.merges, ["<|endoftext|>"])
    assert trained.encode(text) == reference.encode(text)


def test_the_search_never_gives_up_on_natural_text(trained):
    search = trained._searcher()
    for pre in fast_pretokenize(TRAINING_TEXT):
        assert search.encode(pre.encode("utf-8")) is not None


# -- pre-tokenization ----------------------------------------------------------

TRICKY = (
    "aZ09 '\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u2028\u3000.,!-'sllvedtm"
    "éßΩж中文٣²½Ⅻ“”’…\u0301\ud800\udfff😀🌟𝐀𝟙\U00020000\U000e0001"
)


@SETTINGS
@given(text=st.text(alphabet=TRICKY, max_size=40) | st.text(max_size=40))
def test_pretokenize_equals_regex_findall(text):
    assert fast_pretokenize(text) == FULL.findall(text)


def test_the_table_agrees_with_regex_on_every_bmp_character():
    # Each character next to a letter, a digit, a space and itself: a wrong
    # class (letter, digit, space or other) changes where the pieces end.
    every = "".join(f"a{c}1{c} {c}{c}.{c}\n" for c in map(chr, range(0x10000)))
    assert fast_pretokenize(every) == FULL.findall(every)


@pytest.mark.parametrize(
    "text",
    ["emoji 😀😀 and 🌟", "math 𝐀𝐁 x", "𝟙𝟚3 four", "a 𝐀, b 😀. c", "😀" * 50, "x" * 40 + " 𝐀" + " y" * 40],
)
def test_text_above_the_bmp(text):
    assert fast_pretokenize(text) == FULL.findall(text)
