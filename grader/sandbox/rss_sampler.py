"""The peak memory a call added: the worker's resident set, and its child processes' too.

`encode_file_streaming` reports it (`StreamResult.peak_growth_bytes`), so a test can tell a streaming encoder
from one that reads the whole file.
"""

from __future__ import annotations

import threading

from . import procstats
from .procstats import PeakMeter


class RssSampler:
    """Peak RSS growth of a pid: VmHWM reset before, plus the RSS of it and its descendants
    sampled every 2 ms by a thread (so memory parked in a child process counts too).

    In namespace mode the worker has no /proc at all, so it cannot reset its own VmHWM; sampling
    covers the other mode."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.meter = PeakMeter(pid) if pid else None
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.002):
            rss = procstats.tree_rss_bytes(self.pid) if self.pid else None
            if rss:
                self.peak = max(self.peak, rss)

    def stop(self) -> None:
        if not self._stop.is_set():
            self._stop.set()
            self._thread.join()
            if self.meter is not None:
                self.final = max(self.meter.growth(), self.peak - self.meter.base)

    def growth(self) -> int:
        self.stop()
        return max(0, getattr(self, "final", 0))
