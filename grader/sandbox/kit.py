"""Value types of the `bpe.kit` namespace, shared by the sandboxed proxy and the in-process shim.

Graded tests only ever see these two shapes, whichever mode runs them, so they never branch on it.
"""

from __future__ import annotations

from typing import NamedTuple


class CallStats(NamedTuple):
    """Cost of the previous call into the submission, measured from outside it."""

    wall_s: float
    cpu_s: float


class StreamResult(NamedTuple):
    """What `bpe.kit.encode_file_streaming` saw: the ids, and how much the tokenizer's memory grew."""

    ids: list[int]
    peak_growth_bytes: int


DEFAULT_READ_CAP = 16 * 1024 * 1024
