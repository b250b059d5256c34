"""One worker process, seen from the trusted side: start it, talk to it under a deadline, kill it.

Everything the worker says is read with a deadline and a size cap; the worker's own stdout/stderr
are drained into a capped buffer (shown to the student, never parsed). Killing is thorough: in PID
namespace mode the worker is the namespace's init, so killing it kills every process it started;
otherwise the whole process group is killed, then any process still carrying this worker's token in
its environment (a double-forked daemon that called setsid) is hunted down.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import select
import signal
import subprocess
import time
from typing import Any

from ..errors import BadReply, CallStalled, CallTimeout, CpuLimitExceeded, WorkerCrashed
from ..i18n import _
from . import _linux, procstats, wire
from .box import Sandbox
from .call_words import OVERLOADED, signal_words, stall_kind

OUTPUT_CAP = 64 * 1024
STARTUP_SECONDS = 30.0
CPU_POLL_S = 0.05  # how often a CPU-capped call's CPU time is read (so, about how late it is stopped)
SAMPLE_S = 0.5  # how often a pending call's CPU time is recorded (cpu_samples)
MAX_SAMPLES = 2000
# A call whose worker tree used no CPU time, with no thread of it runnable, for IDLE_S seconds is
# stopped then (CallStalled) instead of at its wall-clock limit: it waits on what will not come (a
# pool whose child was killed, a lock never released). Correct code never sleeps this long, and a
# process starved on a saturated machine is runnable, so load alone never stops a call here.
IDLE_S = 10.0
IDLE_CPU_S = 0.02  # CPU time below this since it was last active counts as none (10 ms ticks)
# A CPU-capped call whose wall-clock deadline comes while it works steadily on a small share of the
# cores (call_words.OVERLOADED: a busy machine, or its children doing the work) is given more wall
# time, STRETCH_STEP_S at a time, up to STRETCH x the time it was first given: its CPU cap still
# bounds it, and CPU time, not the machine's load, is what a grade measures. A call that waits
# (its CPU time stands still) gets no more time.
STRETCH = 4.0
STRETCH_STEP_S = 1.0
_LIVE: set[int] = set()  # pids of the workers this process started and has not ended yet


def describe_exit(status: int | None) -> str:
    """Why a worker ended, in words a student can act on."""
    if status is None:
        return _("it stopped answering")
    if status < 0:
        return _("it was killed by {signal}").format(signal=signal_words(-status))
    return _("it exited with status {status} (is there an os._exit or sys.exit in your code?)").format(
        status=status
    )


class WorkerProcess:
    """A started worker. `request()` sends one message and returns its final reply."""

    def __init__(self, sandbox: Sandbox, control: int | None = None) -> None:
        """Start a worker; with `control` (a socket's descriptor), a zygote (forked.Zygote)."""
        self.sandbox = sandbox
        self.scratch = sandbox.new_scratch()
        self.token = secrets.token_hex(8)
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        fds = (req_r, rep_w) if control is None else (req_r, rep_w, control)
        argv, env = sandbox.command(self.scratch, self.token, fds, zygote=control is not None)
        self.popen = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=fds,
            start_new_session=True,
            close_fds=True,
        )
        _LIVE.add(self.popen.pid)
        if not sandbox.namespaces:
            _become_subreaper()
        for fd in (req_r, rep_w, out_w):
            os.close(fd)
        self._start_state(out_r)

    def _start_state(self, out_r: int) -> None:
        """What the trusted side tracks of a worker it has just started (its pipes are open)."""
        self._out_r = out_r
        for fd in (self._req_w, self._rep_r, self._out_r):
            os.set_blocking(fd, False)
        self._buf = bytearray()
        self.output = bytearray()
        self.output_dropped = 0
        self.pid: int | None = None  # host pid of the Python worker, for /proc measurements
        self.dead_reason: str | None = None
        self.imported = False  # the worker says "ready", then imports the submission, then "imported"
        self.census: object = (
            None  # ...with its stub census (worker.stub_census), checked by remote_errors.Census
        )
        self.import_cpu_s = 0.0  # its CPU seconds when it said "imported" (session.Session._await_import)
        # While set: the worker tree's CPU seconds (as `cpu_seconds()` reads them) at which the
        # pending call is stopped. CPU time, unlike wall time, barely moves with the machine's
        # load, so a run stopped here is stopped on every machine, at the same point of its work.
        self.cpu_cap: float | None = None
        # (seconds since the call began, worker-tree CPU seconds) about every SAMPLE_S while a call
        # is pending: how its CPU time moved, for `call_words.stall_kind` when it runs out of time.
        self.cpu_samples: list[tuple[float, float]] = []
        # The processes besides the worker seen in its tree during the pending call (a pool's
        # children); each moves the CPU cap by `child_allowance`, up to `max_children` of them,
        # and the first by `import_allowance` too (a slow import a pool's children may repeat).
        self.children_seen: set[int] = set()
        self.child_allowance = 0.0
        self.import_allowance = 0.0
        self.max_children = 0
        self._call_start = (0.0, 0.0)
        self._last_active = (0.0, 0.0)
        self.stretched_s = 0.0  # wall-clock seconds the pending call was given past its deadline

    # -- startup -----------------------------------------------------------------------------
    def wait_ready(self) -> None:
        if self.pid is not None:
            return
        # The clock starts when we begin to wait, not when the process was made: a spare worker
        # may have waited, ready, through a whole long test before it is needed.
        reply = self._read_message(time.monotonic() + STARTUP_SECONDS, startup=True)
        if reply.get("ready") is not True:
            raise BadReply(_("the worker did not start properly"))
        self.pid = self._find_worker_pid()

    def _find_worker_pid(self) -> int:
        if not self.sandbox.namespaces:
            return self.popen.pid
        path = f"/proc/{self.popen.pid}/task/{self.popen.pid}/children"
        try:
            with open(path) as f:
                children = f.read().split()
        except OSError:
            children = []
        return int(children[0]) if children else self.popen.pid

    # -- talking ------------------------------------------------------------------------------
    def begin_call(self) -> None:
        """A call starts now: its CPU samples start afresh."""
        now = time.monotonic()
        self.children_seen = set()
        self._call_start = (now, self.cpu_seconds())
        self.cpu_samples = [(0.0, 0.0)]
        self._next_sample = now + SAMPLE_S
        self._last_active = self._call_start  # (when, CPU seconds) it last worked or was runnable
        self.stretched_s = 0.0

    def _sample(self, now: float, cpu: float | None = None) -> float:
        t0, c0 = self._call_start
        cpu = self.cpu_seconds() if cpu is None else cpu
        if len(self.cpu_samples) < MAX_SAMPLES:
            self.cpu_samples.append((now - t0, max(0.0, cpu - c0)))
        self._next_sample = now + SAMPLE_S
        active_at, active_cpu = self._last_active
        if cpu - active_cpu >= IDLE_CPU_S or (
            now - active_at >= IDLE_S and procstats.tree_runnable(self.pid)
        ):
            self._last_active = (now, cpu)
        return cpu

    def stalled_for(self, now: float) -> float:
        """Seconds since the pending call last used CPU time or had a runnable thread."""
        return now - self._last_active[0] if self.pid else 0.0

    def send(self, message: Any, deadline: float) -> None:
        data = memoryview(wire.dumps(message))
        while data:
            self._wait(deadline, write=True)
            try:
                n = os.write(self._req_w, data)
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise self._died() from None
            data = data[n:]

    def wait_imported(self, deadline: float) -> None:
        """Until the worker has imported the submission (at once, but for a fresh spare)."""
        while not self.imported:
            reply = self._read_message(deadline)
            if reply.get("imported") is not True:
                raise BadReply(_("the worker did not say it had imported the submission"))
            self.imported = True
            self.census = reply.get("census")

    def receive(self, deadline: float) -> dict:
        # The idle clock restarts: while we handled its last message, the worker may have waited on us.
        self._last_active = (time.monotonic(), self._last_active[1])
        return self._read_message(deadline)

    def _read_message(self, deadline: float, startup: bool = False) -> dict:
        """The next line, read under the deadline. Both caps of `wire.loads` (size, containers) are
        enforced as the bytes arrive: a reply that breaks one is refused at the first chunk that
        does, and the worker is killed, rather than after reading (and parsing) all of it."""
        scanned = 0  # bytes of _buf known to hold no newline (keeps reading a big reply linear)
        containers = self._buf.count(b"[") + self._buf.count(b"{")
        while True:
            nl = self._buf.find(b"\n", scanned)
            scanned = len(self._buf)
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                try:
                    return wire.envelope(wire.loads(line))
                except wire.WireError as e:
                    self.kill()
                    raise BadReply(
                        _("the worker sent an unreadable reply ({error})").format(error=e)
                    ) from None
            if len(self._buf) > wire.MAX_LINE:
                self.kill()
                raise BadReply(
                    _(
                        "the reply is larger than {mib} MiB; is your code returning something enormous?"
                    ).format(mib=wire.MAX_LINE // 2**20)
                )
            if containers > wire.MAX_CONTAINERS:
                self.kill()
                raise BadReply(
                    _(
                        "the reply holds more than {count} lists, tuples and dicts; is your code returning "
                        "something enormous?"
                    ).format(count=f"{wire.MAX_CONTAINERS:,}")
                )
            self._wait(deadline, startup=startup)
            try:
                chunk = os.read(self._rep_r, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._died()
            self._buf += chunk
            self._last_active = (time.monotonic(), self._last_active[1])  # a reply is progress
            containers += chunk.count(b"[") + chunk.count(b"{")

    def _wait(self, deadline: float, write: bool = False, startup: bool = False) -> None:
        """Block until our pipe is ready, draining the worker's output meanwhile; enforce the
        deadline and, while one is set, the CPU cap (polled every CPU_POLL_S)."""
        fd = self._req_w if write else self._rep_r
        capped = self.cpu_cap is not None and not startup
        next_poll = time.monotonic() + CPU_POLL_S
        while True:
            now = time.monotonic()
            remaining = deadline + self.stretched_s - now
            if not startup and now >= getattr(self, "_next_sample", float("inf")):
                self._sample(now)
                if self.stalled_for(now) >= IDLE_S and not self._unread():
                    self.kill()
                    stalled = CallStalled(
                        _("the call into your code used no CPU time for {seconds:g} s").format(seconds=IDLE_S)
                    )
                    stalled.idle_s = IDLE_S
                    raise stalled
            if remaining <= 0 and capped and self._may_stretch(now, deadline):
                self.stretched_s += STRETCH_STEP_S
                continue
            if remaining <= 0:
                if not startup:
                    self._sample(now)  # the last figures before the worker (and its /proc) is gone
                self.kill()
                raise CallTimeout(
                    _("the call into your code did not start in time (an endless loop, or far too slow?)")
                    if startup
                    else _(
                        "the call into your code did not answer in time (an endless loop, or far too slow?)"
                    )
                )
            rlist = [self._out_r] + ([] if write else [fd])
            wlist = [fd] if write else []
            try:
                r, w, _x = select.select(rlist, wlist, [], min(remaining, CPU_POLL_S if capped else SAMPLE_S))
            except InterruptedError:
                continue
            if self._out_r in r:
                self.drain_output()
            if fd in r or fd in w:
                return
            if capped and time.monotonic() >= next_poll:
                next_poll = time.monotonic() + CPU_POLL_S
                if self.cpu_seconds() >= self.cap_now():
                    self.kill()
                    raise CpuLimitExceeded(_("the call into your code used up its CPU time and was stopped"))

    def _may_stretch(self, now: float, deadline: float) -> bool:
        """Whether a capped call at its deadline works steadily on a small share of the cores, and
        has not yet had STRETCH x the wall time it was first given."""
        given = deadline - self._call_start[0]
        if given <= 0 or deadline + self.stretched_s + STRETCH_STEP_S > self._call_start[0] + STRETCH * given:
            return False
        self._sample(now)
        return stall_kind(self.cpu_samples) == OVERLOADED

    def _unread(self) -> bool:
        """Has the worker written what we have not read yet? Then it waits on us, not stalled (the
        grader itself may have been starved of the CPU on a saturated machine)."""
        try:
            return bool(select.select([self._rep_r, self._out_r], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    def drain_output(self, max_reads: int = 16) -> None:
        """Read what the worker printed, at most `max_reads` chunks per call.

        Bounded on purpose: a worker that prints without end would otherwise keep us here forever,
        and no deadline (this call's, or the spare worker's start-up) would ever be checked.
        """
        for _read in range(max_reads):
            try:
                chunk = os.read(self._out_r, 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            room = OUTPUT_CAP - len(self.output)
            self.output += chunk[: max(room, 0)]
            self.output_dropped += max(0, len(chunk) - max(room, 0))

    def _died(self) -> WorkerCrashed:
        status = None
        try:
            status = self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        self.dead_reason = describe_exit(status)
        return WorkerCrashed(_("the process running your code died: {why}").format(why=self.dead_reason))

    def scratch_path(self) -> os.PathLike:
        """Where the trusted side finds the worker's scratch files (see Sandbox.mount_plan)."""
        if self.sandbox.namespaces:
            from pathlib import Path

            return Path(f"/proc/{self.pid}/root") / self.sandbox.to_view(self.scratch).lstrip("/")
        return self.scratch

    # -- measuring --------------------------------------------------------------------------------
    def cpu_seconds(self) -> float:
        if not self.pid:
            return 0.0
        seconds, pids = procstats.tree_cpu(self.pid)
        if len(pids) > 1 and len(self.children_seen) < self.max_children:
            self.children_seen.update(pids[1 : 1 + self.max_children - len(self.children_seen)])
        return seconds

    def children_counted(self) -> int:
        """How many processes of the pending call's tree earn it `child_allowance`."""
        return min(len(self.children_seen), self.max_children)

    def cap_now(self) -> float | None:
        """The CPU cap, moved by the allowance of the processes the call has run so far."""
        if self.cpu_cap is None:
            return None
        n = self.children_counted()
        return self.cpu_cap + self.child_allowance * n + (self.import_allowance if n else 0.0)

    # -- ending ----------------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """Kill the worker and everything it started; safe to call twice."""
        # The namespace's init first: the kernel then kills every process in the namespace and
        # `unshare` reaps it and exits (killing `unshare` first would orphan it as a zombie).
        if self.pid and self.pid != self.popen.pid:
            _signal(self.pid, signal.SIGKILL)
            try:
                self.popen.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except OSError:
            pass
        _signal(self.popen.pid, signal.SIGKILL)
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        _LIVE.discard(self.popen.pid)
        hunt_token(self.token)
        if not self.sandbox.namespaces:
            reap_orphans()

    def close(self) -> None:
        self.kill()
        self.drain_output()
        for fd in (self._req_w, self._rep_r, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._req_w = self._rep_r = self._out_r = -1

    def take_output(self) -> str:
        """What the student's code printed so far (capped), decoded for display."""
        if self._out_r >= 0:
            self.drain_output()
        text = self.output.decode("utf-8", errors="replace")
        text = as_a_terminal_shows(without_unshare(text))
        if self.output_dropped:
            text += "\n" + _("[... {count} more bytes of output not shown]").format(
                count=f"{self.output_dropped:,}"
            )
        return text


_UNSHARE_SAYS = re.compile(r"unshare: [^\n]*\n?")


def without_unshare(text: str) -> str:
    """The output without what `unshare` says of its child's violent death on the same pipe, after
    whatever the child printed last (a progress bar without its newline): that is not the student's."""
    return _UNSHARE_SAYS.sub(lambda m: "\n" if m.start() and text[m.start() - 1] != "\n" else "", text)


def as_a_terminal_shows(text: str) -> str:
    """Each line as a terminal leaves it: a progress bar redrawn with carriage returns (tqdm's) keeps
    its last state, not every frame; what is kept is the student's output, never the grader's words."""
    lines = []
    for line in text.split("\n"):
        frames = line.split("\r")
        lines.append(next((f for f in reversed(frames) if f), ""))
    return "\n".join(lines)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError as e:
        if e.errno not in (errno.ESRCH, errno.EPERM):
            raise


def hunt_token(token: str) -> None:
    """Kill any process whose environment carries this worker's token (escaped daemons)."""
    needle = f"BPE_KIT_WORKER={token}".encode()
    for _try in range(3):
        found = False
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    env = f.read()
            except OSError:
                continue
            if needle in env.split(b"\0"):
                found = True
                _signal(int(entry.name), signal.SIGKILL)
        if not found:
            return
        time.sleep(0.01)


_subreaper = False


def _become_subreaper() -> None:
    """Without a PID namespace, orphans of a worker (double-forked daemons) become our children
    instead of init's, so `reap_orphans` can find them even if they wiped their environment."""
    global _subreaper
    if not _subreaper:
        _subreaper = _linux.become_subreaper()


def reap_orphans() -> None:
    """Kill and reap our children that are not live workers (adopted orphans of dead ones)."""
    if not _subreaper:
        return
    me = str(os.getpid()).encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in _LIVE:
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2 :].split()[1] == me:
            _signal(int(entry.name), signal.SIGKILL)
            try:
                os.waitpid(int(entry.name), 0)
            except ChildProcessError:
                pass
