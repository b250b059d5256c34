"""Test workers forked from one that imported the submission (the zygote: forker.py), seen from
the trusted side.

A `Zygote` is a worker that imports the submission once, under the import's limits, and then only
forks. A `ForkedWorker` is one test's worker, forked from it: to the session it is a
`WorkerProcess` like any other (same pipes, deadlines, CPU caps and measurements, read from
/proc), started in milliseconds instead of a Python start-up and an import.

What a fresh worker gives a test, a forked one must give too, and this side checks it from outside
rather than trusting the zygote, which ran the submission's import:
- before each fork, the zygote is idle: it used no CPU time beyond forking since its import, runs
  no process but the keepers it forked, and maps no memory shared for writing (a channel from one
  test's worker to the next);
- after each fork, the test worker is in user, mount, IPC, network and PID namespaces that are not
  the zygote's, with no capability.
Any doubt (`ForkRefused`) ends forking for the grading: the session goes on with fresh workers,
which grade the same.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import time

from ..errors import GradingAbort, WorkerCrashed
from ..i18n import _
from . import procstats
from .box import Sandbox
from .process import STARTUP_SECONDS, WorkerProcess, _signal, describe_exit

# CPU seconds the zygote may use after its import: its forks (a page-table copy each, some
# milliseconds for a package that imports torch) and its wait for the next request, nothing else.
FORK_CPU_S = 0.05
IDLE_CPU_S = 0.2
NAMESPACES = ("user", "mnt", "ipc", "net", "pid")
KEEPER_WAIT_S = 5.0


class ForkRefused(Exception):
    """The zygote cannot fork a test worker that is as isolated as a fresh one (the reason)."""


class Zygote(WorkerProcess):
    """The worker that imports the submission once, then forks a test worker per request."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            super().__init__(sandbox, control=theirs.fileno())
        finally:
            theirs.close()
        self.forked: set[int] = set()  # host pids of the keepers and test workers it forked
        self.forks = 0
        self.cpu_after_import: float | None = None
        self.namespaces: dict[str, str] = {}

    def ready_to_fork(self) -> None:
        """After the import: the figures each fork is checked against."""
        self.drain_output()
        self.cpu_after_import = procstats.own_cpu_seconds(self.pid)
        self.namespaces = {ns: procstats.namespace(self.pid, ns) for ns in NAMESPACES}

    def check_idle(self) -> None:
        """Raise ForkRefused unless the zygote is as it was after its import (module docstring)."""
        if not self.alive() or self.cpu_after_import is None:
            raise ForkRefused("the zygote is gone")
        used = procstats.own_cpu_seconds(self.pid) - self.cpu_after_import
        if used > IDLE_CPU_S + FORK_CPU_S * self.forks:
            raise ForkRefused(f"the zygote used {used:.2f} s of CPU time after its import")
        strangers = {p for p in set(procstats.children(self.pid)) - self.forked if procstats.running(p)}
        if strangers:
            raise ForkRefused(f"the zygote runs processes it did not fork for a test: {sorted(strangers)}")
        if procstats.shared_writable_mappings(self.pid):
            raise ForkRefused("the zygote maps memory shared for writing")

    def fork(self, fds: tuple[int, int, int]) -> int:
        """A keeper forked with these descriptors (request, reply, output); its host pid."""
        self.check_idle()
        before = set(procstats.children(self.pid))
        try:
            self.control.settimeout(STARTUP_SECONDS)
            socket.send_fds(self.control, [b"fork\n"], list(fds))
            reply = self._control_line()
        except (OSError, ValueError) as e:
            raise ForkRefused(f"the zygote did not fork ({e})") from None
        if not isinstance(reply, dict) or type(reply.get("forked")) is not int:
            raise ForkRefused("the zygote answered a fork request with something else")
        self.forks += 1
        new = set(procstats.children(self.pid)) - before - self.forked
        if len(new) != 1:
            raise ForkRefused("the zygote's fork could not be found")
        keeper = new.pop()
        self.forked.add(keeper)
        return keeper

    def _control_line(self) -> object:
        data = b""
        while not data.endswith(b"\n"):
            chunk = self.control.recv(4096)
            if not chunk:
                raise OSError("the zygote closed its control socket")
            data += chunk
            if len(data) > 4096:
                raise ValueError("a reply too long")
        return json.loads(data)

    def close(self) -> None:
        try:
            self.control.close()
        except OSError:
            pass
        super().close()


class ForkedWorker(WorkerProcess):
    """One test's worker, forked from the zygote; its keeper (the fork's first process) waits
    for it and ends as it does (forker.py)."""

    def __init__(self, zygote: Zygote) -> None:
        self.sandbox, self.scratch, self.token = zygote.sandbox, zygote.scratch, zygote.token
        self.zygote = zygote
        self.popen = None
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            self.keeper = zygote.fork((req_r, rep_w, out_w))
        except BaseException:
            for fd in (self._req_w, self._rep_r, out_r):
                os.close(fd)
            raise
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        self._start_state(out_r)
        # What the import printed, as a fresh worker's output begins with it.
        self.output += zygote.output

    def _find_worker_pid(self) -> int:
        """The test worker, once it said it is ready, found under its keeper and checked as
        isolated as a fresh worker (else ForkRefused)."""
        found = procstats.children(self.keeper)
        if len(found) != 1:
            self.kill()
            raise ForkRefused("the forked test worker could not be found")
        pid = found[0]
        self.zygote.forked.add(pid)  # orphaned, it would be the zygote's child a moment
        for ns in NAMESPACES:
            mine = procstats.namespace(pid, ns)
            if mine is None or mine == self.zygote.namespaces.get(ns):
                self.pid = pid
                self.kill()
                raise ForkRefused(f"the forked test worker shares the zygote's {ns} namespace")
        if procstats.effective_caps(pid) != 0:
            self.pid = pid
            self.kill()
            raise ForkRefused("the forked test worker kept capabilities")
        return pid

    def alive(self) -> bool:
        return procstats.running(self.pid if self.pid else self.keeper)

    def _died(self) -> GradingAbort:
        self.kill(wait_status=True)
        self.dead_reason = describe_exit(self.status)
        return WorkerCrashed(_("the process running your code died: {why}").format(why=self.dead_reason))

    def kill(self, wait_status: bool = False) -> None:
        """Kill the test worker (init of its PID namespace: all it started dies with it), then its
        keeper; `wait_status`: first wait for the keeper to end by itself and read how."""
        if wait_status:
            self.status = _keeper_status(self.keeper, KEEPER_WAIT_S)
        if self.pid:
            _signal(self.pid, signal.SIGKILL)
            _wait_end(self.keeper, KEEPER_WAIT_S)  # it reaps the test worker, then ends as it did
        _signal(self.keeper, signal.SIGKILL)
        _wait_end(self.keeper, KEEPER_WAIT_S)


def _keeper_status(keeper: int, wait_s: float) -> int | None:
    """How the test worker ended, as Popen.returncode says it (a negative signal number), read from
    its keeper's exit status (the keeper ends as the test worker did); None if not known in time."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        status = procstats.exit_status(keeper)
        if status is not None:
            if os.WIFSIGNALED(status):
                return -os.WTERMSIG(status)
            return os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        select.select([], [], [], 0.005)
    return None


def _wait_end(pid: int, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    while procstats.running(pid) and time.monotonic() < deadline:
        select.select([], [], [], 0.002)
