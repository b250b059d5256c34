"""Strict shape checks on what a submission returned, with messages that say what was expected.

Values from the sandbox are already rebuilt as exact builtins; these checks make sure they are the
RIGHT builtins (a vocab of str instead of bytes, a list of tuples instead of a dict, ...).
"""

from __future__ import annotations


def _kind(value) -> str:
    return type(value).__name__


def check_ids(ids, what: str = "encode(...)") -> list[int]:
    assert type(ids) is list, f"{what} must return a list of ints, got {_kind(ids)}"
    for i, x in enumerate(ids):
        assert type(x) is int, f"{what} must return a list of ints, but item {i} is {x!r} ({_kind(x)})"
    return ids


def check_vocab(vocab) -> dict[int, bytes]:
    assert type(vocab) is dict, f"the vocab must be a dict {{id: bytes}}, got {_kind(vocab)}"
    for key, value in vocab.items():
        assert type(key) is int, f"vocab keys must be ints (token ids), got {key!r} ({_kind(key)})"
        assert type(value) is bytes, (
            f"vocab values must be bytes, got {value!r} ({_kind(value)}) for id {key}"
            + (" — encode the str with .encode('utf-8')" if type(value) is str else "")
        )
    return vocab


def check_merges(merges) -> list[tuple[bytes, bytes]]:
    assert type(merges) is list, f"merges must be a list of (bytes, bytes) tuples, got {_kind(merges)}"
    for i, m in enumerate(merges):
        ok = type(m) is tuple and len(m) == 2 and all(type(t) is bytes for t in m)
        assert ok, f"merges[{i}] must be a tuple of two bytes objects, got {m!r}"
    return merges


def check_train_result(result):
    assert type(result) is tuple and len(result) == 2, (
        f"train_bpe must return a tuple (vocab, merges), got {_kind(result)}"
        + (f" of length {len(result)}" if isinstance(result, (tuple, list)) else "")
    )
    return check_vocab(result[0]), check_merges(result[1])
