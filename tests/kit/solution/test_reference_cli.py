"""`python -m bpe` of the reference: train, encode, and one-line errors."""

import os
import subprocess
import sys
from array import array

import pytest
import reference_bpe

bpe = reference_bpe.load()
TEXT = "low lower lowest<|endoftext|>newer newest widest\r\n" * 20


def run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(reference_bpe.SOLUTION))
    return subprocess.run(
        [sys.executable, "-m", "bpe", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    (root / "corpus.txt").write_bytes(TEXT.encode("utf-8"))
    done = run(
        "train",
        "corpus.txt",
        "--vocab-size",
        300,
        "--special-token",
        "<|endoftext|>",
        "--out",
        "model",
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    return root


def test_train_writes_what_train_bpe_returns(trained):
    vocab, merges = bpe.train_bpe(trained / "corpus.txt", 300, ["<|endoftext|>"])
    loaded = bpe.BPETokenizer.from_files(trained / "model/vocab.json", trained / "model/merges.txt")
    assert loaded.vocab == vocab and loaded.merges == merges


@pytest.mark.parametrize(("dtype", "code"), [("uint16", "H"), ("uint32", "I")])
def test_encode_writes_little_endian_ids(trained, dtype, code):
    done = run(
        "encode",
        "--vocab",
        "model/vocab.json",
        "--merges",
        "model/merges.txt",
        "--special-token",
        "<|endoftext|>",
        "corpus.txt",
        "--out",
        "ids.bin",
        "--dtype",
        dtype,
        cwd=trained,
    )
    assert done.returncode == 0, done.stderr
    ids = array(code, (trained / "ids.bin").read_bytes())
    if sys.byteorder == "big":
        ids.byteswap()
    tok = bpe.BPETokenizer.from_files(
        trained / "model/vocab.json", trained / "model/merges.txt", ["<|endoftext|>"]
    )
    assert list(ids) == tok.encode(TEXT)


def test_encode_prints_ids_without_out(trained):
    done = run(
        "encode", "--vocab", "model/vocab.json", "--merges", "model/merges.txt", "corpus.txt", cwd=trained
    )
    tok = bpe.BPETokenizer.from_files(trained / "model/vocab.json", trained / "model/merges.txt")
    assert done.returncode == 0 and [int(x) for x in done.stdout.split()] == tok.encode(TEXT)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["train", "missing.txt", "--vocab-size", 300, "--out", "m"], "missing.txt"),
        (["train", "bad.txt", "--vocab-size", 300, "--out", "m"], "bad.txt"),
        (["train", "corpus.txt", "--vocab-size", 100, "--out", "m"], "vocab_size"),
        (["encode", "--vocab", "nope.json", "--merges", "model/merges.txt", "corpus.txt"], "nope.json"),
        (
            ["encode", "--vocab", "model/merges.txt", "--merges", "model/merges.txt", "corpus.txt"],
            "merges.txt",
        ),
        (["encode", "--vocab", "model/vocab.json", "--merges", "model/merges.txt", "bad.txt"], "bad.txt"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(trained, args, names):
    (trained / "bad.txt").write_bytes(b"ok \xff not ok")
    done = run(*args, cwd=trained)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert names in done.stderr
