"""The reference's large-file paths: safe cuts, parallel counting, file encoding.

Thresholds are lowered so that small files take the large-file code paths
(several segments, forked workers) and must agree with the simple paths.
"""

import importlib
import io
import random
from array import array

import pytest
import reference_bpe
from slow_trainer import slow_train_bpe

bpe = reference_bpe.load()
training = importlib.import_module("bpe_reference.training")
counting = importlib.import_module("bpe_reference.extras.parallel_counts")
train_large = importlib.import_module("bpe_reference.extras.train_large")
segments = importlib.import_module("bpe_reference.extras.segments")
encode_file = importlib.import_module("bpe_reference.extras.encode_file")

SPECIAL_SETS = [["<|endoftext|>"], ["ab<x>", "<x>"], ["aa"], ["<x>", "<x><y>", "y>"]]


def match_starts(text: str, specials: list[str]) -> set[int]:
    """Byte offsets where special-token matching (longest first) starts a match."""
    starts, pos = set(), 0
    for piece in bpe.split_on_special_tokens(text, specials):
        if piece in specials:
            starts.add(len(text[:pos].encode("utf-8")))
        pos += len(piece)
    return starts


@pytest.mark.parametrize("specials", SPECIAL_SETS, ids=str)
def test_cuts_are_only_where_a_special_token_match_starts(specials):
    rng = random.Random(7)
    alphabet = ["a", "b", "x", "y", "<", ">", "é", " ", "\n"] + specials
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60)))
        data = text.encode("utf-8")
        cuts = segments.find_cuts(io.BytesIO(data), specials, rng.randrange(2, 7), block_size=1)
        assert cuts[0] == 0 and cuts[-1] == len(data) and cuts == sorted(set(cuts))
        assert set(cuts[1:-1]) <= match_starts(text, specials)


@pytest.mark.parametrize("shift", range(-14, 3))
def test_a_special_token_straddling_a_read_block_is_found(shift):
    # 2 segments of a 1000-byte file: the search starts at 500 - 12 (the longest
    # special is 13 bytes) and reads 64 + 12 bytes per block, so the second
    # block's own part starts at 552. Put the only special token across it.
    at = 552 + shift
    text = "x" * at + "<|endoftext|>" + "y" * (1000 - at - 13)
    cuts = segments.find_cuts(io.BytesIO(text.encode()), ["<|endoftext|>"], 2, block_size=64)
    assert cuts == [0, at, 1000]


def test_no_specials_means_one_segment():
    assert segments.find_cuts(io.BytesIO(b"abc" * 100), [], 8) == [0, 300]


def test_iter_text_decodes_across_blocks_and_names_bad_bytes(tmp_path):
    text = "héllo wörld 中文 😀 " * 50
    path = tmp_path / "u.txt"
    path.write_bytes(text.encode("utf-8"))
    for block in (1, 2, 3, 5, 4096):
        assert "".join(segments.iter_text(path, 0, path.stat().st_size, block)) == text
    data = text.encode("utf-8")
    bad_at = len(text[:77].encode("utf-8"))
    path.write_bytes(data[:bad_at] + b"\xff" + data[bad_at:])
    with pytest.raises(ValueError, match=rf"u\.txt: not valid UTF-8 at byte {bad_at}\b"):
        "".join(segments.iter_text(path, 0, len(data) + 1, 7))


@pytest.fixture
def force_large(monkeypatch):
    monkeypatch.setattr(counting, "LARGE_BYTES", 0)
    monkeypatch.setattr(counting, "SEGMENT_BYTES", 200)
    monkeypatch.setattr(segments, "BLOCK_BYTES", 64)
    monkeypatch.setattr(encode_file, "LARGE_BYTES", 0)
    monkeypatch.setattr(encode_file, "SEGMENT_BYTES", 300)


DOCS = "low lower lowest. it's  naïve\r\n中文中文 😀 <|endoftext|>newer newest\n\n<|endoftext|>" * 12


@pytest.mark.parametrize("specials", [["<|endoftext|>"], []], ids=["specials", "none"])
def test_parallel_counting_equals_counting_the_whole_text(tmp_path, force_large, specials):
    path = tmp_path / "docs.txt"
    path.write_bytes(DOCS.encode("utf-8"))
    whole = training._count_text(DOCS, specials)
    assert train_large.count_pretokens(path, specials) == {t.encode(): n for t, n in whole.items()}


def test_parallel_training_matches_slow_trainer(tmp_path, force_large):
    path = tmp_path / "docs.txt"
    path.write_bytes(DOCS.encode("utf-8"))
    got = train_large.train_bpe(path, 300, ["<|endoftext|>"])
    assert got == slow_train_bpe(DOCS, 300, ["<|endoftext|>"])


def test_bad_utf8_in_a_later_segment_names_the_file(tmp_path, force_large):
    path = tmp_path / "late_error.txt"
    path.write_bytes(DOCS.encode("utf-8") + b"\xc3(")
    with pytest.raises(ValueError, match=r"late_error\.txt"):
        train_large.train_bpe(path, 300, ["<|endoftext|>"])


@pytest.mark.parametrize(("dtype", "code"), [("uint16", "H"), ("uint32", "I")])
def test_encode_file_equals_encode(tmp_path, force_large, dtype, code):
    path = tmp_path / "docs.txt"
    path.write_bytes(DOCS.encode("utf-8"))
    vocab, merges = bpe.train_bpe(path, 320, ["<|endoftext|>"])
    tok = bpe.BPETokenizer(vocab, merges, ["<|endoftext|>"])
    n = encode_file.encode_file(tok, path, tmp_path / "ids.bin", dtype)
    ids = array(code, (tmp_path / "ids.bin").read_bytes())
    assert n == len(ids) and ids.tolist() == tok.encode(DOCS)


def test_encode_file_refuses_ids_too_large_for_uint16(tmp_path):
    vocab = {i: bytes([i]) for i in range(256)} | {70_000: b"ab"}
    tok = bpe.BPETokenizer(vocab, [(b"a", b"b")])
    path = tmp_path / "t.txt"
    path.write_text("ab")
    with pytest.raises(ValueError, match="uint32"):
        encode_file.encode_file(tok, path, tmp_path / "ids.bin", "uint16")
    assert not (tmp_path / "ids.bin").exists()


def test_no_progress_bar_unless_asked(tmp_path, force_large, capfd, monkeypatch):
    monkeypatch.delenv("BPE_PROGRESS", raising=False)
    path = tmp_path / "docs.txt"
    path.write_bytes(DOCS.encode("utf-8"))
    train_large.train_bpe(path, 300, ["<|endoftext|>"])
    assert capfd.readouterr().err == ""
    monkeypatch.setenv("BPE_PROGRESS", "1")
    train_large.train_bpe(path, 300, ["<|endoftext|>"])
    assert "merging" in capfd.readouterr().err


def test_without_worker_processes_the_work_is_done_in_process(tmp_path, force_large, monkeypatch):
    class NoProcesses:
        def Pool(self, n):
            raise BlockingIOError("fork: Resource temporarily unavailable")

    monkeypatch.setattr(segments.multiprocessing, "get_context", lambda method: NoProcesses())
    path = tmp_path / "docs.txt"
    path.write_bytes(DOCS.encode("utf-8"))
    expected = {t.encode(): n for t, n in training._count_text(DOCS, ["<|endoftext|>"]).items()}
    assert train_large.count_pretokens(path, ["<|endoftext|>"]) == expected


def test_a_large_chunk_is_cut_into_batches_lazily(monkeypatch):
    # Counting streams 1 MiB blocks of hundreds of documents: pre-tokenizing all
    # of a block before handing out the first batch would hold every pre-token
    # of the block in memory at once.
    tokenizer = importlib.import_module("bpe_reference.tokenizer")
    pretokenizing = importlib.import_module("bpe_reference.pretokenize")
    calls = []
    real = tokenizer.pretokenize
    monkeypatch.setattr(tokenizer, "pretokenize", lambda text: calls.append(text) or real(text))
    block = "a story about a cat.<|endoftext|>" * 1000
    batches = tokenizer._iter_batches([block], pretokenizing._compile_specials(["<|endoftext|>"]), 13)
    assert next(batches) == (["a", " story", " about", " a", " cat", "."], "<|endoftext|>")
    assert len(calls) == 1
    assert sum(1 for _ in batches) == 1000  # 999 more documents, then the empty rest
