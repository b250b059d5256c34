"""Progress on the terminal: one redrawn bar on a TTY, one plain line per student otherwise (CI logs)."""

from __future__ import annotations

import sys
import time

from . import records


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    def __init__(self, total: int, *, stream=None, kept: int = 0, stale=(), strays=(), width: int = 28):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.total, self.done, self.width = total, 0, width
        self.counts = dict.fromkeys(records.STATUSES, 0)
        self.t0 = time.monotonic()
        for name in strays:
            self._line(f"ignored {name}: not a student's folder or .zip")
        if kept - len(stale):
            self._line(f"{kept - len(stale)} already graded by this kit (kept; --force regrades them)")
        if stale:
            self._line(
                f"STALE: {len(stale)} result(s) kept by --keep-stale were graded by another kit or "
                f"submission than today's: {', '.join(stale)}"
            )

    def _line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, rec: dict) -> None:
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
