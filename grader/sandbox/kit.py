"""Value types and file rules of the `bpe.kit` namespace, shared by the sandboxed proxy and the
in-process shim.

Graded tests only ever see these two shapes, whichever mode runs them, so they never branch on it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from .inprocess import InprocessBpe, LocalObject
    from .proxy import RemoteBpe, RemoteHandle

# The student's `bpe` as the graded tests and the checks hold it (the `bpe` fixture), and an object
# of its classes that a call returned (a CharBPE, a tokenizer): sandboxed or in process.
Bpe: TypeAlias = "RemoteBpe | InprocessBpe"
StudentObject: TypeAlias = "RemoteHandle | LocalObject"


class CallStats(NamedTuple):
    """Cost of the previous call into the submission, measured from outside it."""

    wall_s: float
    cpu_s: float


class StreamResult(NamedTuple):
    """What `bpe.kit.encode_file_streaming` saw: the ids, and how much the tokenizer's memory grew."""

    ids: list[int]
    peak_growth_bytes: int


DEFAULT_READ_CAP = 16 * 1024 * 1024


def plain_name(name: str) -> str:
    """`name` if it names a file in the scratch folder itself (no path), else ValueError."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"output name must be a plain file name, got {name!r}")
    return name


def read_capped(path: Path, max_bytes: int) -> bytes:
    """Read a file without following a symlink, refusing anything bigger than `max_bytes`."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{path.name} is larger than {max_bytes} bytes")
    return data
