"""The wire codec: round trips, exact builtin types on the trusted side, caps on size and depth."""

from __future__ import annotations

import json
from collections import OrderedDict, defaultdict

import pytest

from grader.sandbox import wire


def roundtrip(value):
    return wire.decode(wire.loads(wire.dumps(wire.encode(value))))


def exact_types(value):
    """Every node's type, recursively (dict keys included)."""
    if type(value) in (list, tuple):
        return {type(value)} | set().union(*map(exact_types, value)) if value else {type(value)}
    if type(value) is dict:
        out = {dict}
        for k, v in value.items():
            out |= exact_types(k) | exact_types(v)
        return out
    return {type(value)}


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -7,
        2**80,
        1.5,
        "héllo\n\x00",
        b"\x00\xff bytes",
        [],
        (),
        {},
        [1, [2, (3, b"4")]],
        {0: b"a", 255: b"\xff", 256: b"ab"},
        [((b"a", b"b"), 3)],
        {"vocab": ["\ufffd", "a"], "merges": [[[1, 2], 3]]},
        {(1, 2): [b""], "k": None},
    ],
)
def test_round_trip_preserves_value_and_type(value):
    back = roundtrip(value)
    assert back == value
    assert exact_types(back) == exact_types(value)


def test_special_floats_survive():
    back = roundtrip([float("inf"), float("-inf")])
    assert back == [float("inf"), float("-inf")]
    nan = roundtrip(float("nan"))
    assert nan != nan


def test_subclasses_travel_as_the_exact_builtin():
    class LyingInt(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    class Weird(str):
        def __hash__(self):
            return 0

    value = [LyingInt(5), Weird("a"), defaultdict(list, {1: [2]}), OrderedDict(a=bytearray(b"x"))]
    back = roundtrip(value)
    assert back == [5, "a", {1: [2]}, {"a": b"x"}]
    assert exact_types(back) == {list, int, str, dict, bytes}
    assert back[0] != 6  # the lying __eq__ did not survive


def test_unknown_objects_become_opaque_values_that_equal_nothing():
    back = roundtrip([{1, 2}])
    assert isinstance(back[0], wire.Opaque)
    assert back[0] != {1, 2} and back[0] != back[0].shown
    assert "set" in repr(back[0])


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": 1, "b": 2}',  # not a tag
        b'{"x": 1}',  # unknown tag
        b'{"b": "not base64!"}',  # bad bytes
        b'{"d": [[[1], 2]]}',  # unhashable key
        b'{"d": [[1]]}',  # broken pair
        b"[NaN]",  # bare constant
        b"[1, 2",  # truncated
        b'{"t": [1], "t": [2]}',  # duplicate key
        b'{"h": [1, "CharBPE"]}',  # a handle where none may appear
    ],
)
def test_decode_rejects_malformed_values(line):
    with pytest.raises(wire.WireError):
        wire.decode(wire.loads(line))


def test_decode_caps_depth():
    deep = b"[" * (wire.MAX_DEPTH + 5) + b"]" * (wire.MAX_DEPTH + 5)
    with pytest.raises(wire.WireError, match="deep"):
        wire.decode(wire.loads(deep))
    very_deep = b"[" * 200_000 + b"]" * 200_000
    with pytest.raises(wire.WireError):
        wire.decode(wire.loads(very_deep))


def test_loads_caps_size(monkeypatch):
    monkeypatch.setattr(wire, "MAX_LINE", 1000)
    with pytest.raises(wire.WireError, match="over"):
        wire.loads(json.dumps(["x" * 2000]).encode())


def test_loads_caps_the_number_of_containers():
    many = b"[" + b",".join([b"[]"] * (wire.MAX_CONTAINERS + 1)) + b"]"
    with pytest.raises(wire.WireError, match="lists and objects"):
        wire.loads(many)
    assert len(wire.loads(b"[" + b",".join([b"[]"] * 1000) + b"]")) == 1000


def test_huge_int_literal_is_a_wire_error_not_a_crash():
    with pytest.raises(wire.WireError):
        wire.loads(b"[" + b"9" * 10_000 + b"]")


def test_encode_refuses_self_containing_values():
    loop = []
    loop.append(loop)
    with pytest.raises(wire.WireError):
        wire.encode(loop)


def test_lines_are_single_ascii_lines():
    line = wire.dumps(wire.encode(["a\nb", "é", b"\n"]))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line.isascii()


def test_envelope_requires_distinct_string_keys():
    assert wire.envelope(wire.loads(b'{"id": 1, "ok": [1]}')) == {"id": 1, "ok": [1]}
    for bad in (b"[1]", b'{"id": 1, "id": 2}'):
        with pytest.raises(wire.WireError):
            wire.envelope(wire.loads(bad))


def test_worker_side_decoding_rebuilds_iterators_and_references():
    objects = {7: "the object"}
    raw = wire.loads(wire.dumps([{"i": ["a", "b"]}, {"h": [7, "X"]}, {"t": [1]}]))
    it, obj, tup = wire.decode_plain(raw, objects.__getitem__)
    assert list(it) == ["a", "b"] and iter(it) is it
    assert obj == "the object" and tup == (1,)


def test_encode_refuses_a_value_too_big_for_any_reply_before_encoding_it():
    """The worker's side of the cap: judged from lengths alone, so an enormous answer costs no time."""
    for value in (
        "x" * (wire.MAX_LINE + 1),
        [0] * (wire.MAX_LINE // 2 + 1),
        {"k": [b"x"] * (wire.MAX_LINE // 2 + 1)},
    ):
        with pytest.raises(wire.WireError, match="larger than the 16 MiB reply limit"):
            wire.encode(value)
    assert wire.too_big("x" * 1000) is None and wire.too_big([0] * 1000) is None
    assert wire.encode([0] * 1000) == [0] * 1000
