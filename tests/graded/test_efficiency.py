"""Efficiency gates: training speed, encoding speed, and streaming memory.

Budgets are never a fixed number of seconds: see grader/calibration.py. Each gate also checks that
the fast answer is a right answer, against expected results stored in data/fixtures/public/speed/.

PYTEST_DONT_REWRITE: every check carries its own message, written for students.
"""

from __future__ import annotations

import pytest

from grader import calibration
from grader.checks import golden
from grader.checks.messages import explain_merges
from grader.checks.shapes import check_ids, check_train_result
from grader.checks.speed import WALL_FACTOR, memory_figures, timed_call, verdict

EOT = "<|endoftext|>"
TRAIN_HINT = (
    "Hint: do not recount every pair after every merge. Count the distinct pre-tokens once, "
    "keep the pair counts, and after a merge update only the counts of pairs next to it "
    "(and only in the words that contain the merged pair)."
)
ENCODE_HINT = (
    "Hint: do not replay every merge over the whole text. Pre-tokenize, then merge each "
    "pre-token by rank (lowest first), and cache the ids of pre-tokens you have already seen."
)
MEMORY_LIMIT_PER_FILE_BYTE = 3  # streaming needs ~0.5x the file (its cache); reading it whole ~8x
STREAM_TIME_ALLOWANCE = 4
STREAM_SLACK_S = 30.0


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("speed")


@pytest.mark.timeout(300)
def test_training_speed(bpe, scratch, record_property):
    bpe.train_bpe(golden.root("public") / "corpora" / "tiny_words.txt", 260, [])  # a stub fails here, fast
    budget = calibration.budgets(scratch)["train"]
    corpus = calibration.write_training_corpus(scratch)
    what = f"train_bpe on {corpus.stat().st_size // 1000} KB of stories, vocab_size={calibration.TRAIN_VOCAB_SIZE}"
    result, seconds = timed_call(
        bpe,
        budget,
        lambda: bpe.train_bpe(corpus, calibration.TRAIN_VOCAB_SIZE, [EOT]),
        what,
        TRAIN_HINT,
        gate="training",
        record=record_property,
    )
    vocab, merges = check_train_result(result)
    expected = golden.SpeedTrainCase(golden.root("public"))  # the first merges, stored by `make fixtures`
    assert len(vocab) == calibration.TRAIN_VOCAB_SIZE, (
        f"{what}: expected exactly {calibration.TRAIN_VOCAB_SIZE} vocab entries, got {len(vocab)}"
    )
    problem = explain_merges(expected.diagnostics(), expected.merges, merges[: len(expected.merges)])
    assert problem is None, f"{what}: fast, but the merges are wrong.\n{problem}"
    ok, message = verdict(seconds, budget, what, TRAIN_HINT)
    record_property("feedback", message)
    if not ok:
        raise AssertionError(message)


@pytest.mark.timeout(300)
def test_encode_speed(bpe, scratch, record_property):
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    tok = bpe.BPETokenizer(vocab, merges, specials)
    tok.encode("warm up: the first call may pay for imports")
    budget = calibration.budgets(scratch)["encode"]
    text = calibration.generated(calibration.ENCODE_TEXT)
    what = f"encode on {len(text.encode('utf-8')) // 1000} KB of stories ({len(merges)} merges)"
    ids, seconds = timed_call(
        bpe, budget, lambda: tok.encode(text), what, ENCODE_HINT, gate="encoding", record=record_property
    )
    expected = golden.IdDigest(golden.root("public") / "speed" / "encode" / "ids.txt")
    wrong = expected.first_wrong_block(check_ids(ids))
    assert wrong is None, (
        f"{what}: fast, but the ids are wrong: {len(ids)} ids instead of {expected.count}, "
        f"the first wrong one among ids #{wrong} to #{wrong + golden.BLOCK_IDS - 1}."
    )
    ok, message = verdict(seconds, budget, what, ENCODE_HINT)
    record_property("feedback", message)
    if not ok:
        raise AssertionError(message)


@pytest.mark.timeout(300)
def test_encode_iterable_memory(bpe, scratch, record_property):
    from grader.errors import CallTimeout, CpuLimitExceeded

    path = calibration.write_stream_file(scratch)
    size = path.stat().st_size
    vocab, merges, specials = calibration.encode_tokenizer_parts()
    tok = bpe.BPETokenizer(vocab, merges, specials)
    # The file is ~4x the encode-speed text: allow ~4x that gate's CPU stop, and wall time to
    # spare (this gate measures memory, not speed).
    cpu = STREAM_TIME_ALLOWANCE * calibration.budgets(scratch)["encode"].abort_after
    wall = WALL_FACTOR * cpu + STREAM_SLACK_S
    with bpe.kit.timeout(wall, cpu=cpu):
        try:
            result = bpe.kit.encode_file_streaming(tok, path)
        except CallTimeout as stop:
            spent = f"{cpu:.0f} s of CPU time" if isinstance(stop, CpuLimitExceeded) else f"{wall:.0f} s"
            raise AssertionError(
                f"encode_iterable over a {size / 1e6:.1f} MB file was stopped after "
                f"{spent}, so its memory could not be measured. Make encode fast "
                f"first (see the encoding speed test).\n{ENCODE_HINT}"
            ) from None
    expected = golden.IdDigest(golden.root("public") / "speed" / "stream" / "ids.txt")
    ids = check_ids(result.ids, "encode_iterable(...)")
    wrong = expected.first_wrong_block(ids)
    if wrong is not None:
        raise AssertionError(
            f"encode_iterable over a {size / 1e6:.1f} MB file read in chunks gave wrong ids: "
            f"{len(ids)} ids instead of {expected.count}, the first wrong one among ids "
            f"#{wrong} to #{wrong + golden.BLOCK_IDS - 1}."
        )
    limit = MEMORY_LIMIT_PER_FILE_BYTE * size
    message = (
        f"encode_iterable over a {size / 1e6:.1f} MB file grew your program's memory by "
        f"{result.peak_growth_bytes / 1e6:.1f} MB; the limit is {limit / 1e6:.1f} MB."
    )
    record_property("feedback", message)
    record_property("figures", memory_figures("streaming memory", result.peak_growth_bytes, limit))
    if result.peak_growth_bytes > limit:
        raise AssertionError(
            message + "\nHint: encode_iterable must be lazy: never join all chunks, never build the whole "
            "list of ids; yield ids as soon as a pre-token is complete, keeping only the unfinished tail."
        )
