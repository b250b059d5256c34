"""Progress on the terminal: one redrawn bar on a TTY, one plain line per student otherwise (CI logs)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

from . import records

if TYPE_CHECKING:
    from collections.abc import Iterable

# What a student --only left out is, by the reason the farm would regrade them (grader/farm/batch.py).
_LEFT = {
    "current": "graded by this kit",
    "stale": "stale",
    "new": "not graded yet",
    "incomplete": "incomplete",
    "older format": "of an older record format",
    records.GRADER_ERROR: "grader error",
    records.INTERRUPTED: "interrupted",
}


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        kept: dict[str, list[str]] | None = None,
        left: dict[str, list[str]] | None = None,
        strays: Iterable[str] = (),
        older: dict[str, int] | None = None,
        width: int = 28,
    ) -> None:
        """`kept`: the selected students not regraded, {"current": [...], "stale": [...]} (kept by
        --keep-stale); `left`: the students --only left out, by their state ("current", "stale",
        "new", ...), so every count printed says what happened to whom; `older`: {student: format}
        of the selected students whose record is of an older format, regraded whole."""
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.total, self.done, self.width = total, 0, width
        self.counts = dict.fromkeys(records.STATUSES, 0)
        self.t0 = time.monotonic()
        for name in strays:
            self._line(f"ignored {name}: not a student's folder or .zip")
        kept, left = kept or {}, left or {}
        current, stale = kept.get("current", []), kept.get("stale", [])
        if current:
            self._line(f"{len(current)} already graded by this kit (kept; --force regrades them)")
        if stale:
            self._line(
                f"STALE: {len(stale)} student(s) kept by --keep-stale have results graded by another kit "
                f"or submission than today's: {', '.join(stale)}"
            )
        if older:
            self._line(
                f"{len(older)} record(s) of an older format (format {', '.join(map(str, sorted(set(older.values()))))}; "
                f"this farm writes format {records.FORMAT}, which keeps the raw records a grade is built from) "
                f"are regraded whole, --tests or not: {', '.join(older)}"
            )
        if left:
            states = ", ".join(f"{len(v)} {_LEFT.get(k, k)}" for k, v in sorted(left.items()))
            self._line(f"{sum(map(len, left.values()))} not selected by --only, left as they are ({states})")

    def _line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, rec: dict) -> None:
        ignored = rec.get("requires_python_ignored")
        if ignored:
            self._line(
                f"  {rec['student']}: graded with --ignore-requires-python: Python {ignored['version']}, "
                f"outside its requires-python = {ignored['requires_python']!r}"
            )
        self.done += 1
        self.counts[rec["status"]] += 1
        elapsed = time.monotonic() - self.t0
        if self.tty:
            if rec["status"] != records.GRADED:
                self._line(f"  {rec['student']}: {rec['status']}: {rec['message'][:150]}")
            filled = self.width * self.done // max(self.total, 1)
            eta = elapsed / self.done * (self.total - self.done)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(
                f"\r\033[K[{bar}] {self.done}/{self.total}  graded {self.counts['graded']}"
                f"  timed out {self.counts['timed_out']}  errors {self.counts['grader_error']}"
                f"  unreadable {self.counts['unreadable_submission']}  eta {_clock(eta)}"
            )
            self.stream.flush()
        else:
            what = (
                f"{rec['score']:g}/{rec['max_score']:g}"
                if rec["status"] == records.GRADED
                else rec["message"][:150]
            )
            self._line(
                f"[{self.done}/{self.total}] {rec['student']}: {rec['status']}: {what}"
                f" ({rec['timing']['seconds']:.1f} s)"
            )

    def finish(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")  # keep the last bar; the summary goes below it
        counts = ", ".join(f"{n} {s}" for s, n in self.counts.items())
        self.stream.write(f"done in {_clock(time.monotonic() - self.t0)}: {counts}\n")
        self.stream.flush()
