"""Run one job in a fresh subprocess and measure it: wall time, peak RSS, and the job's own result.

Peak memory is the largest single process's peak RSS, as the worker itself reports it (its own
`VmHWM`, and `ru_maxrss` of the children it waited for). The kernel's figure for the child as a
whole (`os.wait4`) cannot serve: Linux copies the parent's high-water mark into a forked child, so
it would report at least this bench's own peak, which grows while it generates corpora. Only when
the worker could not report (it failed or was stopped) is that figure kept. A contender that forks
workers is also sampled as a whole process tree, because a peak RSS covers one process; the sampler
polls every 50 ms, so it can miss a spike shorter than that.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "bench" / "worker.py"


@dataclass
class Outcome:
    """One subprocess run: what the worker reported, plus what the kernel saw."""

    ok: bool
    result: dict = field(default_factory=dict)
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0
    tree_peak_mb: float = 0.0
    cpu_s: float = 0.0
    timed_out: bool = False
    error: str = ""


def _tree(pid: int) -> list[int]:
    """The process `pid` and all its descendants (Linux /proc children lists)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return found


def _pss_kb(pid: int) -> int:
    """Proportional set size: pages shared between forked workers are split among them, so
    summing over a process tree counts each page once. Falls back to VmRSS."""
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(key):
                        return int(line.split()[1])
        except OSError:
            continue
    return 0


class _TreeSampler(threading.Thread):
    """Polls the summed PSS of a process tree (the process and the workers it forks)."""

    def __init__(self, pid: int, every_s: float = 0.05):
        super().__init__(daemon=True)
        self.pid, self.every_s, self.peak_kb = pid, every_s, 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            total = sum(_pss_kb(p) for p in _tree(self.pid))
            self.peak_kb = max(self.peak_kb, total)
            self.stop.wait(self.every_s)


def run_process(
    cmd: list[str],
    *,
    timeout_s: float | None = None,
    env: dict | None = None,
    cwd: Path = ROOT,
    memory: bool = True,
) -> tuple[Outcome, int, str]:
    """Run `cmd` in its own session; return (measurements, exit status, stderr). On timeout the
    whole process group is killed, so a contender's worker processes go too. `memory=False`: no
    polling of the tree's memory (it costs CPU beside what is timed: a grade's tree is dozens of
    processes), for the figures that are times only."""
    merged_env = {**os.environ, **(env or {})}
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=merged_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    sampler = _TreeSampler(proc.pid)
    if memory:
        sampler.start()
    timed_out = threading.Event()

    def _kill() -> None:
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout_s, _kill) if timeout_s is not None else None
    if timer is not None:
        timer.start()
    stderr = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if timer is not None:
        timer.cancel()
    sampler.stop.set()
    if memory:
        sampler.join()
    outcome = Outcome(
        ok=False,
        wall_s=wall,
        peak_rss_mb=usage.ru_maxrss / 1024,
        tree_peak_mb=sampler.peak_kb / 1024,
        timed_out=timed_out.is_set(),
        cpu_s=usage.ru_utime + usage.ru_stime,
    )
    if outcome.timed_out:
        outcome.error = f"stopped after {timeout_s:g} s"
    elif proc.returncode != 0:
        lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
        outcome.error = lines[-1] if lines else f"exit status {proc.returncode}"
    else:
        outcome.ok = True
    return outcome, proc.returncode, stderr


def run_job(job: dict, *, timeout_s: float | None = None, env: dict | None = None) -> Outcome:
    """Run `bench/worker.py` on `job` in a fresh interpreter; its JSON answer lands in .result."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as out:
        out_path = Path(out.name)
    try:
        cmd = [sys.executable, str(WORKER), json.dumps(job), str(out_path)]
        outcome, _, _ = run_process(cmd, timeout_s=timeout_s, env=env)
        if outcome.ok:
            outcome.result = json.loads(out_path.read_text() or "{}")
            outcome.peak_rss_mb = outcome.result.pop("peak_rss_mb", outcome.peak_rss_mb)
        return outcome
    finally:
        out_path.unlink(missing_ok=True)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def repeat(job: dict, runs: int, *, timeout_s: float | None = None, env: dict | None = None) -> list[Outcome]:
    """Run `job` up to `runs` times; stop early at the first failure or timeout (no point
    waiting for a capped contender three times)."""
    outcomes = []
    for _ in range(runs):
        outcome = run_job(job, timeout_s=timeout_s, env=env)
        outcomes.append(outcome)
        if not outcome.ok:
            break
    return outcomes
