"""Who is in the class: one folder or zip per student, named by student id; and who is in a shard.

The roster is sorted case-insensitively (as a person reads a class list). Shards split it by index
modulo N, so every machine that sees the same directory agrees on who grades whom, and the shards
differ in size by at most one. Any other file in the folder is a stray: reported, never a student.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import RosterError

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$")


@dataclass(frozen=True)
class Entry:
    student: str
    path: Path


def roster_key(student: str) -> tuple[str, str]:
    return (student.casefold(), student)


def discover(submissions: Path) -> tuple[list[Entry], list[str]]:
    """(every student in `submissions` in roster order, the names of stray files there).

    Hidden files and OS litter are ignored silently."""
    if not submissions.is_dir():
        raise RosterError(f"{submissions}: not a directory of submissions")
    by_id: dict[str, list[Path]] = {}
    strays = []
    for p in submissions.iterdir():
        if p.name.startswith((".", "__MACOSX")) or p.name in ("Thumbs.db", "desktop.ini"):
            continue
        if p.is_file() and not p.name.lower().endswith(".zip"):
            strays.append(p.name)
            continue
        sid = p.name[:-4] if p.is_file() else p.name
        if not _ID.match(sid):
            raise RosterError(f"{p}: {sid!r} is not usable as a student id (letters, digits, ._@+- only)")
        by_id.setdefault(sid, []).append(p)
    clashes = {k: v for k, v in by_id.items() if len(v) > 1}
    if clashes:
        sid, paths = sorted(clashes.items())[0]
        raise RosterError(
            f"{submissions}: student {sid!r} has more than one submission: "
            + ", ".join(sorted(q.name for q in paths))
        )
    entries = [Entry(sid, by_id[sid][0]) for sid in sorted(by_id, key=roster_key)]
    return entries, sorted(strays, key=roster_key)


def parse_shard(spec: str) -> tuple[int, int]:
    """'2/5' -> (2, 5): shards are numbered from 1 so CI matrix indices can be used as they are."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", spec or "")
    if not m:
        raise RosterError(f"--shard {spec!r}: expected K/N, e.g. 2/5")
    k, n = int(m.group(1)), int(m.group(2))
    if not 1 <= k <= n:
        raise RosterError(f"--shard {spec!r}: K must be between 1 and N")
    return k, n


def in_shard(entries: list[Entry], k: int, n: int) -> list[Entry]:
    """The entries of shard k of n: positions k-1, k-1+n, ... of the sorted roster."""
    return [e for i, e in enumerate(entries) if i % n == k - 1]
