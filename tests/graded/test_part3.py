"""Part 3: the tokenizer (`bpe.BPETokenizer`): encode, decode, files, streaming.

Golden tests use the vocab and merges of data/fixtures/public/train/generated_500 with the special
tokens "<|endoftext|>" and "<|endoftext|><|endoftext|>" (the second is not in the vocab, so the
tokenizer appends it with the next free id); 3.10 uses train/chunk_edges instead, trained on its
own texts so that each of their pre-tokens is one token. Property tests generate texts and compare
your tokenizer with itself (round trips); the ids of many generated texts are stored in the
fixtures (encode/generated), shortest first.

PYTEST_DONT_REWRITE: every check carries its own message, written for students.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from data.corpus import EOT
from grader.bpe_facts import golden
from grader.bpe_facts.gpt2 import UNICODE_TO_BYTE
from grader.bpe_facts.text_pieces import PIECES as TEXT_PIECES
from grader.bpe_facts.text_pieces import VARIED
from grader.checks import appended, chunking
from grader.checks.diagnose import first_difference_in_pieces, first_difference_in_tokenizer
from grader.checks.encoding_check import (
    TokenizerFacts,
    check_encode_case,
    check_encoded,
    diagnosed_pieces,
    in_few_calls,
    tokenizer_first,
    with_tokenizer,
)
from grader.checks.expect import expect_error
from grader.checks.messages import diagnosed
from grader.checks.round_trip import broken as round_trip_broken
from grader.checks.shapes import check_ids
from grader.i18n import _

# Any character UTF-8 can encode: every one but the surrogates (category Cs). Said by category, not
# as codec="utf-8": the same characters and the same examples, but hypothesis would find a codec's
# characters by encoding all 1.1 million of them, in every grade (1.4 s of CPU each time).
PIECES = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=6), st.sampled_from(TEXT_PIECES)
)
# Characters GPT-2's pattern treats specially: each is tried alone first, so a failure is minimal;
# then texts that vary what the contract allows (letter case, marks, scripts, whitespace).
ONE_CHARS = ["_", "²", "½", "\x1c", "\x1f", "\u00a0", "\u2028", "𝐀", "𝟙", "'", "\r"] + VARIED
TEXTS = st.lists(PIECES, max_size=8).map("".join)


@pytest.mark.timeout(60)
def test_encode_basic(bpe):
    check_encode_case(bpe, "public", "basic")


@pytest.mark.timeout(60)
def test_encode_special_tokens(bpe):
    check_encode_case(bpe, "public", "specials")
    if bpe.kit.contract == "cs336":  # CS336 states no id for a special token of an empty vocab
        return
    # The next free id of an empty vocab is 0: it has no largest id to add 1 to.
    tok = bpe.BPETokenizer({}, [], [EOT])
    got = tok.vocab
    assert got == {0: EOT.encode()}, _(
        "{call}: an empty vocab has no id yet, so the special token gets the first free id, 0: "
        "expected vocab {expected}, got {got}"
    ).format(call=f"BPETokenizer({{}}, [], [{EOT!r}])", expected={0: EOT.encode()}, got=got)
    ids = check_ids(tok.encode(EOT + EOT))
    assert ids == [0, 0], _("{call} should be [0, 0], got {got}").format(
        call=f"BPETokenizer({{}}, [], [{EOT!r}]).encode({EOT + EOT!r})", got=ids
    )
    _leaves_arguments_unchanged(bpe)


def _leaves_arguments_unchanged(bpe) -> None:
    """The constructor keeps copies: the caller's vocab, merges and special tokens stay as given."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"hi"}
    merges = [(b"h", b"i")]
    specials = [EOT, "<|pad|>", EOT]
    _tok, given, _kwargs = bpe.kit.args_after(bpe.BPETokenizer, dict(vocab), list(merges), list(specials))
    given_vocab, given_merges, given_specials = given
    call = f"BPETokenizer(vocab, {merges!r}, {specials!r})"
    if given_vocab != vocab:
        changed = {i: t for i, t in given_vocab.items() if vocab.get(i) != t}
        raise AssertionError(
            _(
                "BPETokenizer changed the vocab dict it was given: after {call} (vocab: the 256 "
                "single bytes and 256: b'hi') that dict has {count} entries, new or changed: "
                "{changed}. Keep a copy and add the special tokens to it; leave the caller's "
                "dict unchanged"
            ).format(call=call, count=len(given_vocab), changed=changed)
        )
    for name, before, after in (
        ("merges", merges, given_merges),
        ("special_tokens", specials, given_specials),
    ):
        assert after == before, _(
            "BPETokenizer changed the {name} list it was given: after {call} that list is {got}; "
            "keep a copy and leave the caller's list unchanged"
        ).format(name=name, call=call, got=after)


@pytest.mark.timeout(60)
def test_encode_unicode_and_whitespace(bpe):
    check_encode_case(bpe, "public", "unicode")
    # Runs of newlines and spaces with special_tokens=[]: the whole text is one piece, cut into
    # pre-tokens by GPT-2's pattern, as with special tokens.
    check_encode_case(
        bpe,
        "public",
        "whitespace",
        intro=_("with special_tokens=[] (the pre-tokens are GPT-2's pattern's, special tokens or not): "),
    )


@pytest.mark.timeout(60)
def test_decode(bpe):
    def body(make, case, facts):
        tok = make()
        with tokenizer_first(bpe, tok, facts, "decode"):
            _decode_checks(bpe, tok, case, facts)

    with_tokenizer(bpe, "public", "unicode", body)


def _decoded(tok, ids: list[int]) -> str:
    """tok.decode(ids); a UnicodeDecodeError names the rule it breaks, with the ids."""
    try:
        return tok.decode(ids)
    except UnicodeDecodeError:
        raise AssertionError(
            _(
                "{call} raised UnicodeDecodeError: the bytes of these ids are not complete "
                "UTF-8, and decode must still return a str. Join the bytes of all the ids, then decode "
                "once with errors='replace' (an incomplete character becomes '\\ufffd')."
            ).format(call=f"decode({ids})")
        ) from None


def _decode_checks(bpe, tok, case, facts):
    for text, ids in case.texts:
        got = _decoded(tok, list(ids))
        assert got == text, _(
            "{call} should give back {text}, got {got}. Join the bytes "
            "of all the ids first, then decode once with errors='replace'"
        ).format(call=f"decode({ids})", text=repr(text), got=repr(got))
    broken = [0xF0]  # the first byte of a 4-byte character, alone
    got = _decoded(tok, broken)
    assert got == "\ufffd", _(
        "{call} holds an incomplete UTF-8 character; it must decode with "
        "errors='replace' and give '\\ufffd', got {got}"
    ).format(call=f"decode({broken})", got=repr(got))
    size = max(facts.vocab) + 1
    if bpe.kit.contract == "cs336":  # CS336 states no error for an unknown id
        return
    for bad in [size, size + 1000, -1]:
        error = expect_error(
            ValueError,
            lambda bad=bad: tok.decode([72, bad]),
            f"decode([72, {bad}])",
            _("{id} is not a known id").format(id=bad),
        )
        assert str(bad) in str(error), _(
            "decode's ValueError must name the unknown id {id}; got: {error}"
        ).format(id=bad, error=error)
    for bad in [True, 1.0]:  # equal to 1, but no int: vocab.get(bad) would find token 1
        expect_error(
            ValueError,
            lambda bad=bad: tok.decode([72, bad]),
            f"decode([72, {bad!r}])",
            _("an id that is not an int is unknown, although {id} == 1 in Python").format(id=repr(bad)),
        )


@pytest.mark.timeout(60)
def test_save_and_load_round_trip(bpe):
    with_tokenizer(
        bpe, "public", "specials", lambda make, case, facts: _save_and_load(bpe, make(), case, facts)
    )


def _save_and_load(bpe, tok, case, facts):
    vocab_path, merges_path = bpe.kit.outpath("vocab.json"), bpe.kit.outpath("merges.txt")
    with tokenizer_first(bpe, tok, facts, "save"):
        tok.save(vocab_path, merges_path)
        again = bpe.BPETokenizer.from_files(vocab_path, merges_path, list(case.special_tokens))
        assert again.vocab == facts.vocab, _(
            "from_files(save(...)) must give back the same vocab (ids and bytes)"
        )
        assert again.merges == case.train.merges, _(
            "from_files(save(...)) must give back the same merges, in order"
        )
    for text, expected in case.texts:
        got = check_ids(again.encode(text))
        if got != expected and _same_ids(tok, text, got):
            continue  # the tokenizer saved encodes so too: encode's fault, graded by 3.1 to 3.3 and 3.9
        check_encoded(
            bpe, again, facts, text, expected, got, intro=_("after save() and from_files():") + "\n"
        )


def _same_ids(tok, text: str, got: list[int]) -> bool:
    """Does `tok` (built from the same vocab and merges, without files) give `got` for `text`? Then
    a difference from the expected ids is its encoder's, not the files'."""
    try:
        return check_ids(tok.encode(text)) == got
    except Exception:  # its own test names what it raises
        return False


@pytest.mark.timeout(60)
def test_load_gpt2_format_files(bpe, tmp_path):
    folder = golden.root("public") / "gpt2" / "generated_500"
    expected_merges = golden.TrainCase(golden.root("public"), "generated_500").merges
    _loads_gpt2_files(bpe, folder, expected_merges)
    # The same tokenizer in files laid out as the format allows: ids that are not 0..n-1, with gaps,
    # listed in no order; blank lines in merges.txt.
    _loads_gpt2_files(bpe, golden.root("public") / "gpt2" / "generated_500_renumbered", expected_merges)
    # The same merges without the "#version" line: its first line is a merge like any other.
    lines = (folder / "merges.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    bare = tmp_path / "merges.txt"
    bare.write_text("".join(lines[1:]), encoding="utf-8")
    got_merges = bpe.BPETokenizer.from_files(folder / "vocab.json", bare).merges
    assert got_merges == expected_merges, _(
        "from_files on a merges.txt WITHOUT a '#version' line must read every line as a merge: "
        "expected {count} merges starting {start}, got {got_count} "
        "starting {got_start}. Skip the first line only when it starts with '#version'"
    ).format(
        count=len(expected_merges),
        start=expected_merges[:2],
        got_count=len(got_merges),
        got_start=got_merges[:2],
    )
    if bpe.kit.contract == "cs336":  # CS336 states no error for malformed files
        return
    _rejects_malformed_files(bpe, folder / "vocab.json", tmp_path)


def _rejects_malformed_files(bpe, vocab_json, tmp_path) -> None:
    """from_files raises ValueError on a merges.txt line that is not two tokens, on a vocab.json that
    is not JSON, on a vocab.json id that is not a JSON integer (naming the file), and on a merge
    whose tokens, or their join, vocab.json lacks."""
    for line in ["abc", "a b c"]:
        merges = tmp_path / "bad-line-merges.txt"
        merges.write_text(f"#version: 0.2\n{line}\n", encoding="utf-8")
        expect_error(
            ValueError,
            lambda merges=merges: bpe.BPETokenizer.from_files(vocab_json, merges),
            _("from_files on a merges.txt holding the line {line}").format(line=repr(line)),
            _("every merges.txt line but '#version' and blank ones is two tokens separated by one space"),
        )
    no_merges = tmp_path / "no-merges.txt"
    no_merges.write_text("#version: 0.2\n", encoding="utf-8")
    not_json = tmp_path / "not-json-vocab.json"
    not_json.write_text('{"a": 0, "b": 1,', encoding="utf-8")
    expect_error(
        ValueError,
        lambda: bpe.BPETokenizer.from_files(not_json, no_merges),
        _("from_files on a vocab.json that is not valid JSON"),
        _("json.JSONDecodeError is a ValueError"),
    )
    for shown, bad_id in [("true", True), ("1.0", 1.0)]:  # JSON's true and 1.0 are no integer ids
        bad = tmp_path / "bad-id-vocab-5678.json"
        bad.write_text(json.dumps({"a": 0, "b": bad_id, "c": 2}), encoding="utf-8")
        error = expect_error(
            ValueError,
            lambda bad=bad: bpe.BPETokenizer.from_files(bad, no_merges),
            _("from_files on a vocab.json whose id of 'b' is {id}").format(id=shown),
            _("every id in vocab.json is a JSON integer: true and 1.0 are not"),
        )
        assert "bad-id-vocab-5678.json" in str(error), _(
            "the error for a vocab.json id that is not an integer must name the file; your message was: {error}"
        ).format(error=error)
    small = tmp_path / "small-vocab.json"
    small.write_text(json.dumps({"a": 0, "b": 1, "c": 2, "ab": 3}), encoding="utf-8")
    for line, missing in [("a d", "'d'"), ("b c", "'bc'")]:
        merges = tmp_path / "missing-token-merges.txt"
        merges.write_text(f"#version: 0.2\n{line}\n", encoding="utf-8")
        expect_error(
            ValueError,
            lambda merges=merges: bpe.BPETokenizer.from_files(small, merges),
            _("from_files on a vocab.json of 'a', 'b', 'c', 'ab' and the merge {line}").format(
                line=repr(line)
            ),
            _(
                "the vocab has no token {token}: a merge needs both its tokens and their join in the vocab"
            ).format(token=missing),
        )


def _loads_gpt2_files(bpe, folder, expected_merges) -> None:
    tok = bpe.BPETokenizer.from_files(folder / "vocab.json", folder / "merges.txt")
    raw = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    expected_vocab = {i: bytes(UNICODE_TO_BYTE[c] for c in token) for token, i in raw.items()}
    got_vocab = tok.vocab
    assert got_vocab == expected_vocab, _(
        "from_files on GPT-2-format files (vocab.json maps printable strings such as 'Ġthe' to ids; "
        "merges.txt starts with a '#version' line) gave a different vocab: turn each character back into "
        "its byte with unicode_to_bytes()"
    ) + (
        ""
        if sorted(raw.values()) == list(range(len(raw)))
        else "\n"
        + _(
            "In {file}, the ids are not 0..n-1 in the file's order: they have gaps and come in any order. "
            "Each token's id is the number vocab.json gives it."
        ).format(file=f"{folder.name}/vocab.json")
    )
    got_merges = tok.merges
    assert got_merges == expected_merges, _(
        "from_files on {file} gave {got_count} merges starting {got_start}; expected {count} starting "
        "{start}. Skip the first line when it starts with '#version', and skip blank lines"
    ).format(
        file=f"{folder.name}/merges.txt",
        got_count=len(got_merges),
        got_start=got_merges[:2],
        count=len(expected_merges),
        start=expected_merges[:2],
    )
    facts = TokenizerFacts.of(expected_vocab)
    direct = None
    for text, expected in golden.parse_texts((folder / "texts.jsonl").read_text(encoding="utf-8")):
        got = check_ids(tok.encode(text))
        if got != expected:
            with contextlib.suppress(Exception):  # a crash here is its own test's to name
                direct = direct or bpe.BPETokenizer(expected_vocab, expected_merges)
            if direct is not None and _same_ids(direct, text, got):
                continue  # read right: the same tokenizer built without files encodes so too (3.1, 3.9)
        check_encoded(
            bpe, tok, facts, text, expected, got, intro=_("after from_files() on GPT-2-format files:") + "\n"
        )


@pytest.mark.timeout(60)
def test_saved_files_are_gpt2_format(bpe):
    def body(make, case, facts):
        tok = make()
        with tokenizer_first(bpe, tok, facts, "save"):
            _saved_files_checks(bpe, tok, case, facts)

    with_tokenizer(bpe, "public", "basic", body)


def _saved_files_checks(bpe, tok, case, facts):
    tok.save(bpe.kit.outpath("vocab.json"), bpe.kit.outpath("merges.txt"))
    try:
        raw_vocab = json.loads(bpe.kit.read_output("vocab.json").decode("utf-8"))
    except ValueError as error:
        raise AssertionError(
            _("the saved vocab.json is not valid UTF-8 JSON: {error}").format(error=error)
        ) from None
    assert type(raw_vocab) is dict and all(type(v) is int for v in raw_vocab.values()), _(
        "vocab.json must be one JSON object mapping token strings to ids"
    )
    try:
        vocab = {i: bytes(UNICODE_TO_BYTE[c] for c in token) for token, i in raw_vocab.items()}
    except KeyError as error:
        raise AssertionError(
            _(
                "vocab.json keys must be GPT-2 renderings (bytes_to_unicode), but {char} is not a rendered byte"
            ).format(char=repr(error.args[0]))
        ) from None
    assert vocab == facts.vocab, _(
        "the saved vocab.json, read back with unicode_to_bytes, must equal tok.vocab"
    )
    lines = bpe.kit.read_output("merges.txt").decode("utf-8").split("\n")
    rows = [line for line in lines if line and not line.startswith("#version")]
    parsed = []
    for line in rows:
        parts = line.split(" ")
        assert len(parts) == 2, _(
            "each merges.txt line must be two rendered tokens separated by one space: {line}"
        ).format(line=repr(line))
        parsed.append(tuple(bytes(UNICODE_TO_BYTE[c] for c in part) for part in parts))
    assert parsed == case.train.merges, _("the saved merges.txt, read back, must list the merges in order")


@pytest.mark.timeout(120)
def test_round_trip_property(bpe):
    with_tokenizer(bpe, "public", "basic", lambda make, case, facts: _round_trips(bpe, make(), facts))


def _round_trips(bpe, tok, facts):
    @given(TEXTS)
    @example(EOT + EOT + EOT)
    @example("\r\n\r\n  \t")
    def round_trip(text):
        ids = check_ids(tok.encode(text))
        back = tok.decode(ids)
        if back == text:
            return
        message = round_trip_broken(text, ids, back)
        found = first_difference_in_pieces(bpe, text, facts.special_tokens)  # text lost before encoding?
        if found is not None:
            raise diagnosed_pieces(bpe, facts, found, text, ids, message, "encode")
        raise AssertionError(message)

    for text in reversed(ONE_CHARS):  # tried first, so a failure is reported at its smallest
        round_trip = example(text)(round_trip)
    round_trip()


@pytest.mark.timeout(120)
def test_encode_matches_trusted_property(bpe):
    # Texts generated like TEXTS above, with their expected ids (data/fixtures/public/encode/generated),
    # shortest first: the first failure is the smallest one.
    check_encode_case(
        bpe, "public", "generated", intro=_("the smallest text where your ids are wrong:") + "\n"
    )
    # The same ids in a fresh process: ties between equal-rank pairs are broken by position
    # (leftmost first), never by object identity, hash or set order.
    with_tokenizer(
        bpe, "public", "generated", lambda make, case, facts: _same_ids_in_two_processes(bpe, make, case)
    )


def _same_ids_in_two_processes(bpe, make, case):
    # The first process's ids are the stored ones (just checked); a fresh process must give them too,
    # in few calls (grader/checks/batched.py).
    bpe.kit.restart()
    tok = make()
    facts = TokenizerFacts.of(case.train.vocab, case.special_tokens)
    for text, ids, again in in_few_calls(tok, facts, case.texts):
        assert again == ids, _(
            "{call} gave {ids} in one process and {again} in another: among equal-rank "
            "pairs, merge the leftmost occurrence first, never by hash, set or object order"
        ).format(call=f"encode({text!r})", ids=ids, again=again)


@pytest.mark.timeout(180)
def test_encode_iterable_any_chunking(bpe, record_property):
    # Every text is cut at every point, at every pair of points (short texts) and between every two
    # characters (grader/checks/chunking.py); encode_iterable must give what your encode gives for the
    # joined text, on the texts where your encode is right.
    with_tokenizer(
        bpe,
        "public",
        "chunks",
        lambda make, case, facts: _chunkings(bpe, make(), case, facts, record_property),
    )


def _chunkings(bpe, tok, case, facts, record_property):
    got = check_ids(list(tok.encode_iterable([])), "encode_iterable([])")
    assert got == [], _("encode_iterable([]) (no chunks at all) must yield nothing, got {got}").format(
        got=got
    )
    problem, unjudged = chunking.judge(
        tok,
        facts.vocab,
        facts.special_tokens,
        case.texts,
        lambda t: check_ids(tok.encode(t), f"encode({t!r})"),
    )
    if unjudged:
        smallest = min(unjudged, key=len)
        assert len(unjudged) < len(case.texts), _(
            "Your encode gives wrong ids for every text here (the smallest: {smallest}), so "
            "encode_iterable cannot be judged against it. Make encode right first (3.1 to 3.3 and 3.9)."
        ).format(smallest=repr(smallest))
        record_property(
            "feedback",
            _(
                "Not charged here: your encode gives wrong ids for {wrong} of the {texts} "
                "texts (the smallest: {smallest}); encode_iterable is judged only on the others. "
                "3.1 to 3.3 and 3.9 grade encode itself."
            ).format(wrong=len(unjudged), texts=len(case.texts), smallest=repr(smallest)),
        )
    if problem:
        text = problem.text
        found = first_difference_in_tokenizer(bpe, tok, text, facts.special_tokens, facts.vocab)
        if found:
            raise diagnosed(found, problem.message, "encode_iterable")
        raise AssertionError(problem.message)


@pytest.mark.timeout(60)
def test_encode_vocab_ids_not_in_merge_order(bpe):
    # The same vocab and merges, the merged tokens' ids shuffled: encode ranks pairs by merge order
    # (their position in `merges`), never by the id of the token a merge makes. The new ids have gaps
    # (2 apart), so a special token the vocab lacks gets the largest id + 1, not len(vocab).
    case = golden.EncodeCase(golden.root("public"), "basic")
    vocab = dict(case.train.vocab)
    learned = sorted(
        i for i in vocab if i >= 256 and vocab[i] not in {s.encode() for s in case.special_tokens}
    )
    moved = dict(zip(learned, reversed([2 * i for i in learned])))
    shuffled = {moved.get(i, i): token for i, token in vocab.items()}
    facts = TokenizerFacts.of(shuffled, case.special_tokens, case.train.merges)
    before = golden.with_specials(vocab, case.special_tokens)
    renumbered = {i: facts.id_of(token) for i, token in before.items()}  # appended specials too
    texts = case.texts + golden.EncodeCase(golden.root("public"), "specials").texts

    def make(given: dict):
        return bpe.BPETokenizer(given, list(case.train.merges), list(case.special_tokens))

    appended.graded(
        shuffled,
        case.special_tokens,
        make,
        lambda given: _encodes_by_rank(bpe, make(given), texts, facts, renumbered),
    )


def _encodes_by_rank(bpe, tok, texts, facts, moved):
    for text, ids in texts:
        expected = [moved.get(i, i) for i in ids]
        got = check_ids(tok.encode(text))
        check_encoded(
            bpe,
            tok,
            facts,
            text,
            expected,
            got,
            intro=_("with a vocab whose ids do not follow the merge order (the contract allows any ids):")
            + "\n",
            outro="\n"
            + _("Rank a pair by the position of its merge in `merges`, not by the new token's id."),
        )


@pytest.mark.timeout(120)
def test_decode_arbitrary_ids(bpe):
    with_tokenizer(bpe, "public", "specials", lambda make, case, facts: _decodes_any_ids(bpe, make(), facts))


def _decodes_any_ids(bpe, tok, facts):
    vocab = facts.vocab
    size = max(vocab) + 1

    @given(st.lists(st.integers(0, size - 1), max_size=12))
    @example([0xE4, 0xB8])  # two of the three bytes of a CJK character
    def decodes_like_bytes(ids):
        expected = b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
        got = _decoded(tok, ids)
        assert got == expected, _(
            "the smallest example: {call} should be {expected} "
            "(join the bytes, then decode with errors='replace'), got {got}"
        ).format(call=f"decode({ids})", expected=repr(expected), got=repr(got))

    @given(
        st.lists(st.integers(0, size - 1), max_size=4),
        st.one_of(st.integers(max_value=-1), st.integers(min_value=size)),
    )
    def rejects_unknown(ids, bad):
        error = expect_error(
            ValueError,
            lambda: tok.decode(ids + [bad]),
            f"decode({ids + [bad]})",
            _("{id} is not a known id").format(id=bad),
        )
        assert str(bad) in str(error), _("{call} must raise a ValueError naming {id}; got: {error}").format(
            call=f"decode({ids + [bad]})", id=bad, error=error
        )

    with tokenizer_first(bpe, tok, facts, "decode"):
        decodes_like_bytes()
        if bpe.kit.contract != "cs336":  # CS336 states no error for an unknown id
            rejects_unknown()
