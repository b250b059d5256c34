"""Tiny throwaway submissions and graded suites for the grader's own tests.

A "toy" submission is a folder with bpe/__init__.py holding whatever source a test needs; a toy
suite is a tests folder plus a rubric listing each of its tests, worth 1 point, numbered in order.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

HONEST = """
import os, sys, time, resource

class CharBPE:
    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges

    @classmethod
    def train(cls, text, num_merges):
        if not isinstance(text, str):
            raise TypeError("text must be a str")
        return cls(["\\ufffd"] + sorted(set(text)), [])

    def encode(self, text):
        return [self.vocab.index(c) if c in self.vocab else 0 for c in text]

    def decode(self, ids):
        for i in ids:
            if not 0 <= i < len(self.vocab):
                raise ValueError(f"unknown id {i}")
        return "".join(self.vocab[i] for i in ids)

    def encode_iterable(self, chunks):
        for chunk in chunks:
            yield len(chunk)

def merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id); i += 2
        else:
            out.append(ids[i]); i += 1
    return out

def train_bpe(input_path, vocab_size, special_tokens):
    raise NotImplementedError("train_bpe is still a stub")
"""


def write_submission(root: Path, source: str = HONEST, *, extra: dict[str, str] | None = None) -> Path:
    """A submission folder `root` with bpe/__init__.py = source (plus other files, by relative path)."""
    (root / "bpe").mkdir(parents=True, exist_ok=True)
    (root / "bpe" / "__init__.py").write_text(textwrap.dedent(source))
    for rel, text in (extra or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def write_suite(root: Path, source: str, *, points: int = 1) -> tuple[Path, Path]:
    """tests folder (one file, test_toy.py) and a rubric covering every `def test_` in it."""
    tests = root / "graded"
    tests.mkdir(parents=True, exist_ok=True)
    body = "import pytest\n" + textwrap.dedent(source)
    (tests / "test_toy.py").write_text(body)
    names = re.findall(r"^def (test_\w+)", body, flags=re.M)
    rubric = root / "rubric.toml"
    rubric.write_text(
        "".join(
            f'[[test]]\nid = "test_toy.py::{n}"\nnumber = "1.{i}"\nname = "{n}"\npart = 1\n'
            f'points = {points}\nvisibility = "visible"\n\n'
            for i, n in enumerate(names, 1)
        )
    )
    return tests, rubric


def by_name(results: dict) -> dict[str, dict]:
    return {t["name"]: t for t in results["tests"]}
