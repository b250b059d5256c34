"""Part 3 of the reference: BPETokenizer encode/decode/stream/save."""

import itertools
import json

import pytest
import reference_bpe
import replay_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

bpe = reference_bpe.load()
SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=150)
SPECIALS = ["<|endoftext|>", "<|a|>", "<|a|><|b|>"]
TRAINING_TEXT = (
    "the cat sat on the mat. the dog sat on the log!\n\n"
    "it's what we'll do, they've said: 12345 + 678 = 13023\r\n"
    "naïve café, 中文 text, emoji 😀😀 and   spaces\t\ttabs   \n"
) * 4


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("train") / "corpus.txt"
    path.write_bytes(TRAINING_TEXT.encode("utf-8"))
    return bpe.train_bpe(path, 420, ["<|endoftext|>"])


@pytest.fixture(scope="module")
def tok(model):
    vocab, merges = model
    return bpe.BPETokenizer(vocab, merges, SPECIALS)


pieces = st.one_of(
    st.text(alphabet="the cat'sl 1\n\r\t.!é中😀<|>ab", max_size=15),
    st.sampled_from(SPECIALS + ["<|", "|>", "<|a", "<|a|><|"]),
    st.text(max_size=4),  # any Unicode (hypothesis leaves out lone surrogates)
)
texts = st.lists(pieces, max_size=10).map("".join)


def replay_merges(tok, text: str) -> list[int]:
    """Encode by applying every merge, in training order, to every pre-token."""
    id_of = {b: i for i, b in sorted(tok.vocab.items(), reverse=True)}
    out = []
    for piece in bpe.split_on_special_tokens(text, tok.special_tokens):
        if piece in tok.special_tokens:
            out.append(id_of[piece.encode("utf-8")])
            continue
        for pre in bpe.pretokenize(piece):
            parts = replay_oracle.replay(tok.merges, pre.encode("utf-8"))
            out.extend(id_of[p] for p in parts)
    return out


@SETTINGS
@given(text=texts)
def test_decode_inverts_encode(tok, text):
    assert tok.decode(tok.encode(text)) == text


@SETTINGS
@given(text=texts)
def test_encode_equals_replaying_merges_in_order(tok, text):
    assert tok.encode(text) == replay_merges(tok, text)


@pytest.fixture(scope="module", params=[SPECIALS, []], ids=["specials", "no_specials"])
def word_tok(request, tmp_path_factory):
    """Trained until no pair is left: every training pre-token is one token, so a
    pre-token boundary in the wrong place changes the ids."""
    path = tmp_path_factory.mktemp("words") / "corpus.txt"
    extra = "we'll we'l 'l 'll ' '' '''  \n \n\n \r\n it's 's"
    path.write_bytes((TRAINING_TEXT + extra).encode("utf-8"))
    vocab, merges = bpe.train_bpe(path, 10_000, ["<|endoftext|>"])
    assert len(vocab) < 10_000
    return bpe.BPETokenizer(vocab, merges, request.param)


@SETTINGS
@given(text=texts, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_encode_iterable_matches_encode_for_any_chunking(word_tok, text, cuts):
    tok = word_tok
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
    assert list(tok.encode_iterable(iter(chunks))) == tok.encode(text)


@pytest.mark.parametrize(
    "chunks",
    [
        ["hello <|end", "oftext|> world"],
        ["<|a|>", "<|b|>"],  # the longer special straddles the boundary
        ["<|a|><", "|b", "|>x"],
        ["a   ", "  ", "b"],  # a whitespace run straddles the boundary
        ["we'", "l", "l go"],  # a contraction straddles the boundary
        list("it's <|a|><|b|>  x\n\n"),
    ],
)
def test_encode_iterable_handles_straddling_boundaries(word_tok, chunks):
    tok = word_tok
    assert list(tok.encode_iterable(chunks)) == tok.encode("".join(chunks))


def test_encode_iterable_is_lazy(tok):
    def endless():
        while True:
            yield "the cat sat on the mat. "

    ids = tok.encode_iterable(endless())
    first = [next(ids) for _ in range(50)]
    assert tok.decode(first).startswith("the cat sat on the mat.")


def test_longest_special_wins(tok):
    ab = tok.encode("<|a|><|b|>")
    assert len(ab) == 1 and ab != tok.encode("<|a|>")
    assert tok.decode(ab) == "<|a|><|b|>"


def test_specials_missing_from_vocab_get_the_next_free_ids(model):
    vocab, merges = model
    top = max(vocab)
    tok = bpe.BPETokenizer(vocab, merges, ["<|endoftext|>", "<|new|>", "<|newer|>"])
    assert tok.encode("<|endoftext|>") == [256]  # already in the vocab
    assert tok.encode("<|new|><|newer|>") == [top + 1, top + 2]


@pytest.mark.parametrize("bad", [10**9, -1, True, "3", None])
def test_decode_rejects_unknown_ids_naming_them(tok, bad):
    with pytest.raises(ValueError, match=str(bad)):
        tok.decode([1, bad])


def test_decode_replaces_invalid_utf8(tok):
    # ids 0-255 are single bytes: 0xE4 0xB8 is "中" without its last byte.
    assert tok.decode([ord("a"), 0xE4, 0xB8, ord("b")]) == "a\ufffdb"


def test_save_and_from_files_round_trip(tok, tmp_path):
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    tok.save(vocab_path, merges_path)
    again = bpe.BPETokenizer.from_files(vocab_path, merges_path, SPECIALS)
    assert again.vocab == tok.vocab and again.merges == tok.merges
    text = TRAINING_TEXT + "<|a|><|b|> new words"
    assert again.encode(text) == tok.encode(text)
    rendered = json.loads(vocab_path.read_text(encoding="utf-8"))
    assert rendered["Ġ"] == 32 and "Ġ" in vocab_path.read_text(encoding="utf-8")  # not "\\u0120"


def test_from_files_skips_version_line_and_blank_lines(tmp_path):
    table = bpe.bytes_to_unicode()
    vocab = {table[b]: b for b in range(256)}
    vocab.update({"Ġt": 256, "Ġth": 257})
    (tmp_path / "v.json").write_text(json.dumps(vocab), encoding="utf-8")
    (tmp_path / "m.txt").write_text("#version: 0.2\n\nĠ t\n\nĠt h\n", encoding="utf-8")
    tok = bpe.BPETokenizer.from_files(tmp_path / "v.json", tmp_path / "m.txt")
    assert tok.merges == [(b" ", b"t"), (b" t", b"h")]
    assert tok.encode(" the") == [257, ord("e")]


@pytest.mark.parametrize(
    "text",
    ["the" * 200, " " * 300 + "x", "aa" * 150, "中文" * 90, "the cat" * 60 + "\n" * 100, "😀" * 70],
    ids=["word", "spaces", "pairs", "cjk", "mixed", "emoji"],
)
def test_long_pretokens_encode_like_replaying_merges(tok, text):
    assert tok.encode(text) == replay_merges(tok, text)


def test_all_occurrences_of_the_best_pair_merge_before_the_next_pair():
    # A merges list no trainer makes: ("bc", "b") ranks before ("b", "c"), which
    # creates "bc". Encoding "bcbc" merges every ("b", "c") in one left-to-right
    # pass first, as the plain rescanning algorithm does, so the ("bc", "b") that
    # exists halfway through that pass never gets its turn.
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"bcb"}
    tok = bpe.BPETokenizer(vocab, [(b"bc", b"b"), (b"b", b"c")])
    assert tok.encode("bcbc") == [256, 256]
    assert tok.encode("bcb") == [257]
    assert tok.encode("bc" * 50) == [256] * 50  # a long pre-token takes the heap path
