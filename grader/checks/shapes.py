"""Strict shape checks on what a submission returned, with messages that say what was expected.

Values from the sandbox are already rebuilt as exact builtins; these checks make sure they are the
RIGHT builtins (a vocab of str instead of bytes, a list of tuples instead of a dict, ...).
"""

from __future__ import annotations

from grader.i18n import _


def _kind(value: object) -> str:
    return type(value).__name__


def check_ids(ids: object, what: str = "encode(...)") -> list[int]:
    assert type(ids) is list, _("{what} must return a list of ints, got {kind}").format(
        what=what, kind=_kind(ids)
    )
    if set(map(type, ids)) <= {int}:  # the usual answer, checked at C speed
        return ids
    for i, x in enumerate(ids):
        assert type(x) is int, _("{what} must return a list of ints, but item {i} is {item} ({kind})").format(
            what=what, i=i, item=repr(x), kind=_kind(x)
        )
    return ids


def check_vocab(vocab: object) -> dict[int, bytes]:
    assert type(vocab) is dict, _("the vocab must be a dict {{id: bytes}}, got {kind}").format(
        kind=_kind(vocab)
    )
    for key, value in vocab.items():
        assert type(key) is int, _("vocab keys must be ints (token ids), got {key} ({kind})").format(
            key=repr(key), kind=_kind(key)
        )
        said = {"value": repr(value), "kind": _kind(value), "id": key}
        assert type(value) is bytes, (
            _(
                "vocab values must be bytes, got {value} ({kind}) for id {id} — encode the str with .encode('utf-8')"
            )
            if type(value) is str
            else _("vocab values must be bytes, got {value} ({kind}) for id {id}")
        ).format(**said)
    return vocab


def check_merges(merges: object) -> list[tuple[bytes, bytes]]:
    assert type(merges) is list, _("merges must be a list of (bytes, bytes) tuples, got {kind}").format(
        kind=_kind(merges)
    )
    for i, m in enumerate(merges):
        ok = type(m) is tuple and len(m) == 2 and all(type(t) is bytes for t in m)
        assert ok, _("merges[{i}] must be a tuple of two bytes objects, got {merge}").format(
            i=i, merge=repr(m)
        )
    return merges


def check_train_result(result: object) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    assert type(result) is tuple and len(result) == 2, (
        _("train_bpe must return a tuple (vocab, merges), got {kind} of length {length}").format(
            kind=_kind(result), length=len(result)
        )
        if isinstance(result, (tuple, list))
        else _("train_bpe must return a tuple (vocab, merges), got {kind}").format(kind=_kind(result))
    )
    return check_vocab(result[0]), check_merges(result[1])
