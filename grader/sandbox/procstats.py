"""Read a process's CPU time and memory from /proc: the numbers a submission cannot report itself.

Only the trusted side calls these, on the worker's pid (or on itself, in-process).
"""

from __future__ import annotations

import os

_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU of `pid` and of its children it has waited for; 0.0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return 0.0
    # The command name may hold spaces or parentheses: the fields start after the last ')'.
    fields = raw[raw.rfind(b")") + 2 :].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / _TICKS


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU of `pid`'s own threads, without its children's; 0.0 if it is gone."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS if fields else 0.0


def running(pid: int | None) -> bool:
    """Whether `pid` exists and has not ended (a zombie has)."""
    fields = _stat_fields(pid) if pid else None
    return bool(fields) and fields[0] not in (b"Z", b"X")


def exit_status(pid: int) -> int | None:
    """The wait status of a process that has ended and is not yet reaped (a zombie), else None."""
    fields = _stat_fields(pid)
    if not fields or fields[0] != b"Z" or len(fields) < 50:
        return None
    return int(fields[49])


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """/proc/<pid>/stat's fields from the state on (field 3 is index 0), or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2 :].split()


def namespace(pid: int, kind: str) -> str | None:
    """Which namespace of a kind (user, mnt, pid...) `pid` is in, e.g. "mnt:[4026531841]"."""
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return None


def effective_caps(pid: int) -> int | None:
    """The capabilities `pid` holds in its own user namespace (a bit mask), or None if unknown."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        return None
    return None


def shared_writable_mappings(pid: int) -> list[str]:
    """The memory `pid` maps shared and writable (one line of /proc/<pid>/maps each): what a
    process forked from it would share with every other."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    return [line for line in lines if len(line.split()) > 1 and line.split()[1][1:4:2] == "ws"]


def status_bytes(pid: int | str, field: str) -> int | None:
    """A `kB` field of /proc/<pid>/status (VmRSS, VmHWM...) in bytes, or None if unavailable."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(field.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_bytes(pid: int | str = "self") -> int | None:
    """Resident memory now, from /proc/<pid>/statm (cheap enough to sample often)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def reset_peak(pid: int | str = "self") -> bool:
    """Reset VmHWM to the current RSS (writing "5" to clear_refs); False if not allowed here."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """Live child pids of every thread of `pid` (empty if it is gone)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def _tree(pid: int, max_processes: int) -> list[int]:
    """`pid` and its live descendants (at most `max_processes` of them)."""
    found, todo = [], [pid]
    while todo and len(found) < max_processes:
        p = todo.pop()
        found.append(p)
        todo += children(p)
    return found


def tree_cpu_seconds(pid: int, max_processes: int = 512) -> float:
    """CPU of `pid` and of all its live descendants (each with its reaped children), so work
    handed to a child process is counted too."""
    return tree_cpu(pid, max_processes)[0]


def tree_cpu(pid: int, max_processes: int = 512) -> tuple[float, list[int]]:
    """`tree_cpu_seconds`, and the pids of the tree it summed (`pid` first)."""
    pids = _tree(pid, max_processes)
    return sum(cpu_seconds(p) for p in pids), pids


def tree_runnable(pid: int, max_processes: int = 512) -> bool:
    """Is any thread of `pid` or of its live descendants running or waiting for a CPU (state R), or
    for the disk (D)? A starved process on a saturated machine is runnable, a swapping one waits on
    the disk; one that waits on a pipe, a lock or a sleep is neither."""
    for p in _tree(pid, max_processes):
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{p}/task/{tid}/stat", "rb") as f:
                    raw = f.read()
            except OSError:
                continue
            if raw[raw.rfind(b")") + 2 : raw.rfind(b")") + 3] in (b"R", b"D"):  # D: disk, swap
                return True
    return False


def tree_rss_bytes(pid: int, max_processes: int = 64) -> int | None:
    """Resident memory of `pid` and its live descendants: memory parked in a child counts too."""
    sizes = [rss_bytes(p) for p in _tree(pid, max_processes)]
    return sum(s for s in sizes if s) if sizes and sizes[0] is not None else None


class PeakMeter:
    """Peak RSS growth of `pid` from now on: VmHWM reset via clear_refs, else sampled RSS."""

    def __init__(self, pid: int | str) -> None:
        self.pid = pid
        self.base = rss_bytes(pid) or 0
        self.hwm_ok = reset_peak(pid)

    def growth(self) -> int:
        peak = status_bytes(self.pid, "VmHWM") if self.hwm_ok else None
        now = rss_bytes(self.pid) or 0
        return max(0, max(peak or 0, now) - self.base)
