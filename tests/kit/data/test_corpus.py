"""data/corpus.py: the same bytes everywhere, the promised shape, and ensure()/CLI behaviour."""

from __future__ import annotations

import collections
import hashlib
import os
import subprocess
import sys

import pytest
import regex

from data import corpus
from grader.paths import KIT_ROOT as ROOT

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CJK = regex.compile(r"\p{Han}")


def _docs(text: str) -> list[str]:
    assert text.endswith(corpus.DOC_END)
    return text[: -len(corpus.DOC_END)].split(corpus.DOC_END)


def test_splitmix64_matches_the_published_sequence():
    rng = corpus.SplitMix64(1234567)  # test vector of the reference C implementation
    assert [rng.next() for _ in range(3)] == [6457827717110365317, 3203168211198807973, 9817491932198370423]


@pytest.mark.parametrize("name", list(corpus.FILES))
def test_generated_bytes_match_the_pinned_sha256(name):
    kind, size, seed = corpus.FILES[name]
    data = corpus.generate_text(kind, size, seed).encode("utf-8")
    assert hashlib.sha256(data).hexdigest() == corpus.SHA256[name], (
        f"the generator changed {name}; if on purpose, update SHA256 "
        "(python data/corpus.py --print-hashes) and regenerate the fixtures built from it"
    )
    assert size - 5_000 <= len(data) <= size


def test_same_text_in_another_process_with_another_hash_seed():
    code = (
        "import hashlib, sys; sys.path.insert(0, sys.argv[1]); from data import corpus; "
        "print(hashlib.sha256(corpus.generate_text('mixed', 60_000, 7).encode()).hexdigest())"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT)], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == hashlib.sha256(corpus.generate_text("mixed", 60_000, 7).encode()).hexdigest()


def test_slices_are_whole_documents_within_budget_and_prefixes():
    small = corpus.generate_text("mixed", 5_000, 3)
    large = corpus.generate_text("mixed", 50_000, 3)
    assert large.startswith(small) and len(small.encode()) <= 5_000
    assert all(doc and not doc.startswith("\n") for doc in _docs(large))
    assert corpus.EOT not in "".join(_docs(large))
    assert corpus.generate_text("en", 50_000, 4) != corpus.generate_text("en", 50_000, 5)


def test_zero_budget_still_gives_one_document():
    assert len(_docs(corpus.generate_text("zh", 0, 1))) == 1


@pytest.mark.parametrize("bad", [("fr", 10, 1), ("en", -1, 1), ("en", 1.5, 1), ("en", True, 1)])
def test_bad_arguments_are_rejected(bad):
    with pytest.raises(ValueError):
        corpus.generate_text(*bad)


def test_languages_per_kind():
    en = _docs(corpus.generate_text("en", 100_000, 11))
    zh = _docs(corpus.generate_text("zh", 100_000, 11))
    mixed = _docs(corpus.generate_text("mixed", 400_000, 11))
    assert not any(CJK.search(d) for d in en)
    assert all(CJK.search(d) and not regex.search(r"[a-z]", d) for d in zh)
    share = sum(bool(CJK.search(d)) for d in mixed) / len(mixed)
    assert 0.15 < share < 0.25


def test_text_has_the_features_tokenizers_must_handle():
    text = corpus.generate_text("mixed", 400_000, 12)
    for needle in [
        "don't",
        "can't",
        "I'm",
        "It's",
        "'s ",
        "\u2019",
        "\u201c",
        "\u201d",
        " \u2014 ",
        "\u2026",
        "Zo\u00eb",
        "Chlo\u00e9",
        "\n\n",
        "，",
        "。",
        "“",
        "：",
        "！",
        "《",
        "、",
    ]:
        assert needle in text, needle
    assert regex.search(r"\p{Extended_Pictographic}", text)
    assert regex.search(r" \d{2} ", text) and regex.search(r"\d+:\d\d", text)
    assert "\r" not in text and "\t" not in text


def test_word_frequencies_are_zipf_like():
    text = corpus.generate_text("en", 400_000, 13)
    counts = collections.Counter(regex.findall(GPT2_PATTERN, text))
    ranked = [n for _, n in counts.most_common()]
    top = [w for w, _ in counts.most_common(12)]
    assert " the" in top and " to" in top and " and" in [w for w, _ in counts.most_common(30)]
    assert len(counts) > 400  # a long tail of rare words...
    assert ranked[0] > 5 * ranked[20] > 5 * 5 * ranked[200]  # ...under a steep head


def test_chinese_vocabulary_is_broad():
    text = corpus.generate_text("zh", 200_000, 14)
    counts = collections.Counter(CJK.findall(text))
    assert len(counts) > 200
    assert counts.most_common(1)[0][1] > 50 * min(counts.values())


@pytest.fixture
def corpus_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "CORPUS_DIR", tmp_path / "corpus")
    return tmp_path / "corpus"


def test_ensure_generates_then_repairs(corpus_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # paths never depend on the working directory
    path = corpus.ensure("valid_zh")
    assert path == corpus_dir / "valid_zh.txt" == corpus.path("valid_zh.txt")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == corpus.SHA256["valid_zh.txt"]
    path.write_bytes(path.read_bytes()[:-1] + b"?")
    assert corpus.ensure("valid_zh.txt") == path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == corpus.SHA256["valid_zh.txt"]
    assert [p.name for p in corpus_dir.iterdir()] == ["valid_zh.txt"]  # no temporary files left


def test_ensure_unknown_name(corpus_dir):
    with pytest.raises(ValueError, match="unknown corpus file 'test'"):
        corpus.ensure("test")


def test_ensure_refuses_bytes_that_drifted_from_the_pin(corpus_dir, monkeypatch):
    monkeypatch.setitem(corpus.SHA256, "valid_en.txt", "0" * 64)
    with pytest.raises(RuntimeError, match="generator changed"):
        corpus.ensure("valid_en")
    assert not (corpus_dir / "valid_en.txt").exists()


def test_cli_as_script_from_elsewhere_and_as_module(tmp_path):
    script = subprocess.run(
        [sys.executable, str(ROOT / "data" / "corpus.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert script.returncode == 0, script.stderr
    for name, digest in corpus.SHA256.items():
        assert f"sha256 {digest}  data/corpus/{name}" in script.stdout
        assert (ROOT / "data" / "corpus" / name).is_file()
    module = subprocess.run(
        [sys.executable, "-m", "data.corpus"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert module.returncode == 0 and module.stdout.splitlines()[:4] == script.stdout.splitlines()[:4]


def test_cli_bad_argument_is_one_line():
    done = subprocess.run(
        [sys.executable, str(ROOT / "data" / "corpus.py"), "--nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "usage" in done.stderr


def test_cli_unwritable_destination_is_one_line(tmp_path):
    copy = tmp_path / "data"
    copy.mkdir()
    (copy / "corpus.py").write_bytes((ROOT / "data" / "corpus.py").read_bytes())
    (copy / "corpus").write_text("a file where the folder should be")
    done = subprocess.run(
        [sys.executable, str(copy / "corpus.py")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: could not write") and "Traceback" not in done.stderr
