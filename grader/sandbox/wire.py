"""The wire format between the trusted grader and the worker: one JSON object per line.

Never pickle: unpickling runs code chosen by whoever wrote the bytes. JSON carries only plain
values; what JSON lacks is spelled with one-key tag objects, so every JSON object on the wire is a
tag and nothing is ambiguous:

    {"t": [...]}            tuple               {"b": "base64"}        bytes
    {"d": [[k, v], ...]}    dict (any keys)     {"f": "nan"}           nan / inf / -inf
    {"h": [id, "Class"]}    remote object       {"c": "name"}          a callable, call it by name
    {"i": [...]}            an iterator (trusted -> worker only)
    {"o": ["type", "repr"]} a value of a type the wire does not carry (shown, never equal)

`decode` is the trusted side's gate: it builds EXACT builtin types only (a submission cannot send
an object whose `__eq__` lies, a dict subclass, or a str with a hash trick), and refuses replies that
are too large or too deep. This module is stdlib-only: it is copied into the sandbox for the worker.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable

# Which object a tag names: the worker's `handle(obj)` gives a tag for an object the wire does not
# carry (None: not one of its own); the trusted side's `handle(id, class name)` builds a proxy for a
# remote object (id None: a callable, called by its name).
Tagger = Callable[[object], dict | None]
ProxyMaker = Callable[[int | None, str], object]

# A reply is parsed into Python objects many times its size (an empty list costs ~60 bytes for the
# 3 bytes "[],"), so both its length and its number of containers are capped: the grader's own
# memory stays bounded whatever a submission sends. The largest honest reply (ids of a few MB of
# text, a vocabulary of tens of thousands of tokens) is far below both.
MAX_LINE = 16 * 1024 * 1024
MAX_CONTAINERS = 1_000_000
MAX_DEPTH = 48


class WireError(ValueError):
    """A message that is not valid under this format (or breaks its size/depth caps). `fields`:
    what a reply's size cap measured (`too_big`), so the trusted side can say it in the report's
    language instead of passing this English text on."""

    def __init__(self, message: str, fields: dict | None = None) -> None:
        super().__init__(message)
        self.fields = fields or {}


# What `too_big` measured, in English; the trusted side words the same fields in the report's.
TOO_BIG = "a {kind} of {count:,} {unit} is larger than the {mib} MiB reply limit"


def too_big(value: object) -> dict | None:
    """Why one container or string cannot fit in a reply, judged from its length alone (each item
    takes at least 2 bytes on the wire): the fields of TOO_BIG; None if it might. The worker checks
    this before encoding, so an enormous answer is refused at once instead of after minutes of
    encoding and sending; the trusted side's caps (process.WorkerProcess, `loads`) hold whatever a
    submission sends."""
    kind = type(value)
    if kind in (str, bytes, bytearray) or isinstance(value, (str, bytes, bytearray)):
        if len(value) > MAX_LINE:
            return {
                "kind": kind.__name__,
                "count": len(value),
                "unit": "characters",
                "mib": MAX_LINE // 2**20,
            }
    elif isinstance(value, (list, tuple, dict)) and len(value) > MAX_LINE // 2:
        return {"kind": kind.__name__, "count": len(value), "unit": "items", "mib": MAX_LINE // 2**20}
    return None


# ---------------------------------------------------------------------------------------- encoding
def encode(value: object, *, handle: Tagger | None = None, depth: int = 0) -> object:
    """A JSON-ready structure for `value`. `handle(obj)` turns other objects into a tag (or None)."""
    if depth > MAX_DEPTH:
        raise WireError(f"value nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind is bool or kind is int:  # the bulk of every reply: ids
        return value
    exact = _ENCODERS.get(kind)
    if exact is None:
        return _encode_other(value, handle, depth)
    if kind is not float and len(value) > MAX_LINE // 2:
        fields = too_big(value)
        if fields:
            raise WireError(TOO_BIG.format(**fields), fields)
    return exact(value, handle, depth + 1)


def _encode_float(value: float, handle: Tagger | None, depth: int):
    return value if math.isfinite(value) else {"f": repr(value)}


def _encode_list(value: list, handle: Tagger | None, depth: int):
    return [encode(v, handle=handle, depth=depth) for v in value]


def _encode_tuple(value: tuple, handle: Tagger | None, depth: int):
    return {"t": [encode(v, handle=handle, depth=depth) for v in value]}


def _encode_bytes(value: bytes, handle: Tagger | None, depth: int):
    return {"b": base64.b64encode(value).decode("ascii")}


def _encode_dict(value: dict, handle: Tagger | None, depth: int):
    return {
        "d": [
            [encode(k, handle=handle, depth=depth), encode(v, handle=handle, depth=depth)]
            for k, v in value.items()
        ]
    }


# How each exact builtin type travels (given the depth of its items); None, bool and int as they are.
_ENCODERS = {
    str: lambda value, handle, depth: value,
    float: _encode_float,
    list: _encode_list,
    tuple: _encode_tuple,
    bytes: _encode_bytes,
    dict: _encode_dict,
}


def _encode_other(value: object, handle: Tagger | None, depth: int):
    """A value of no exact builtin type: the caller's tag for it (`handle`), else as a subclass."""
    if handle is not None:
        tag = handle(value)
        if tag is not None:
            return tag
    return _encode_subclass(value, handle, depth)


def _encode_subclass(value: object, handle: Tagger | None, depth: int):
    """Subclasses of builtins travel as the builtin they extend, read through the builtin's methods."""
    if isinstance(value, bool):
        return bool.__bool__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return encode(float.__float__(value))
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"b": base64.b64encode(memoryview(value)).decode("ascii")}
    if isinstance(value, dict):
        return encode(dict(dict.items(value)), handle=handle, depth=depth)
    if isinstance(value, list):
        return encode(list(list.__iter__(value)), handle=handle, depth=depth)
    if isinstance(value, tuple):
        return encode(tuple(tuple.__iter__(value)), handle=handle, depth=depth)
    try:
        shown = object.__repr__(value) if type(value).__repr__ is object.__repr__ else repr(value)
    except BaseException:  # a repr that fails is still a value we must report
        shown = object.__repr__(value)
    return {"o": [type(value).__name__, shown[:300]]}


def dumps(message: object) -> bytes:
    """One wire line (ASCII, newline-terminated) for an already-encoded message."""
    return json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode() + b"\n"


# ---------------------------------------------------------------------------------------- decoding
class Opaque:
    """A value of a type the wire does not carry: it shows what it was and equals nothing else."""

    __slots__ = ("shown", "type_name")

    def __init__(self, type_name: str, shown: str) -> None:
        self.type_name, self.shown = type_name, shown

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<a {self.type_name}: {self.shown}>"


def _reject_constant(name: str):
    raise WireError(f"bare {name} is not allowed on the wire")


def loads(line: bytes) -> object:
    """Parse one line into raw JSON (objects as lists of pairs), enforcing the size cap."""
    if len(line) > MAX_LINE:
        raise WireError(f"message of {len(line)} bytes is over the {MAX_LINE}-byte limit")
    if line.count(b"[") + line.count(b"{") > MAX_CONTAINERS:
        raise WireError(f"message holds more than {MAX_CONTAINERS} lists and objects")
    try:
        return json.loads(line, object_pairs_hook=_Pairs, parse_constant=_reject_constant)
    except RecursionError:
        raise WireError("message nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError, huge int literal
        raise WireError(f"malformed message: {e}") from None


class _Pairs(list):
    """A raw JSON object (kept as its key/value pairs until `decode` checks it)."""


_SCALARS = frozenset({int, str, bool, float, type(None)})  # what `decode` returns as it is


def decode(raw: object, *, handle: ProxyMaker | None = None, depth: int = 0) -> object:
    """Exact builtin values from raw JSON. `handle(id, cls)` builds remote-object proxies."""
    if depth > MAX_DEPTH:
        raise WireError(f"value nested deeper than {MAX_DEPTH} levels")
    kind = type(raw)
    if kind in _SCALARS:
        return raw
    if kind is list:
        if set(map(type, raw)) <= _SCALARS:  # a list of ids: checked at C speed, the same values
            return raw
        return [decode(v, handle=handle, depth=depth + 1) for v in raw]
    if kind is not _Pairs or len(raw) != 1:
        raise WireError("a JSON object on the wire must be a single-key tag")
    ((tag, body),) = raw
    reader = _TAGS.get(tag, _malformed)
    value = reader(body, handle, depth + 1)
    if value is _MALFORMED:
        raise WireError(f"unknown or malformed tag {tag!r}")
    return value


# A tag's reader returns this when the tag's body is not what the tag carries.
_MALFORMED = object()


def _malformed(body: object, handle: ProxyMaker | None, depth: int):
    return _MALFORMED


def _decode_tuple(body: object, handle: ProxyMaker | None, depth: int):
    if type(body) is not list:
        return _MALFORMED
    return tuple(decode(v, handle=handle, depth=depth) for v in body)


def _decode_bytes(body: object, handle: ProxyMaker | None, depth: int):
    if type(body) is not str:
        return _MALFORMED
    try:
        return base64.b64decode(body.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise WireError("bad base64 in a bytes value") from None


def _decode_dict(body: object, handle: ProxyMaker | None, depth: int):
    if type(body) is not list:
        return _MALFORMED
    out = {}
    for pair in body:
        if type(pair) is not list or len(pair) != 2:
            raise WireError("dict items must be [key, value] pairs")
        key = decode(pair[0], handle=None, depth=depth)
        try:
            hash(key)
        except TypeError:
            raise WireError(f"unhashable dict key of type {type(key).__name__}") from None
        out[key] = decode(pair[1], handle=handle, depth=depth)
    return out


def _decode_float(body: object, handle: ProxyMaker | None, depth: int):
    return float(body) if body in ("nan", "inf", "-inf") else _MALFORMED


def _decode_opaque(body: object, handle: ProxyMaker | None, depth: int):
    if type(body) is list and len(body) == 2 and all(type(x) is str for x in body):
        return Opaque(body[0][:100], body[1][:300])
    return _MALFORMED


def _decode_handle(body: object, handle: ProxyMaker | None, depth: int):
    if (
        handle is not None
        and type(body) is list
        and len(body) == 2
        and type(body[0]) is int
        and type(body[1]) is str
    ):
        return handle(body[0], body[1][:100])
    return _MALFORMED


def _decode_callable(body: object, handle: ProxyMaker | None, depth: int):
    if handle is not None and type(body) is str:
        return handle(None, body[:100])
    return _MALFORMED


# How each tag is read back (given the depth of its items): see the module docstring.
_TAGS = {
    "t": _decode_tuple,
    "b": _decode_bytes,
    "d": _decode_dict,
    "f": _decode_float,
    "o": _decode_opaque,
    "h": _decode_handle,
    "c": _decode_callable,
}


def envelope(raw: object) -> dict:
    """The top level of a message: an object with distinct string keys (its values stay raw)."""
    if type(raw) is not _Pairs:
        raise WireError("a message must be a JSON object")
    out = {}
    for key, value in raw:
        if type(key) is not str or key in out:
            raise WireError("a message must have distinct string keys")
        out[key] = value
    return out


def decode_plain(raw: object, resolve: Callable[[int], object] | None = None) -> object:
    """Worker-side decoding of trusted requests: same tags, plus iterators and object references."""
    if type(raw) is list:
        return [decode_plain(v, resolve) for v in raw]
    if type(raw) is _Pairs and len(raw) == 1:
        tag, body = raw[0]
        if tag == "i":
            return iter([decode_plain(v, resolve) for v in body])
        if tag == "t":
            return tuple(decode_plain(v, resolve) for v in body)
        if tag == "d":
            return {decode_plain(k, resolve): decode_plain(v, resolve) for k, v in body}
        if tag == "h" and resolve is not None:
            return resolve(body[0])
    return decode(raw)
