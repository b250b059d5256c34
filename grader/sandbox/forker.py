"""The forking worker: it imports the submission once, then each test's worker is forked from it.

Stdlib only: copied into the sandbox with worker.py. A package that imports torch spends over a
second of CPU in its import; a fresh worker per test pays that in every test. Here one process
(the *zygote*) imports it, under the import's own limit, and then only forks. Each fork gets what a
fresh worker has: its own pipes, passed by the trusted side over the control socket; new user,
mount, IPC, network and PID namespaces, in which it is the init, so killing it kills all it
started; fresh tmpfs mounts for every folder it may write (/tmp, /var/tmp, /dev/shm, its scratch);
no capability and no way back (a user namespace of its own, like worker.confine's), and no fd of
the zygote's but its own. The trusted side (forked.py) checks from outside that each of these
holds, and that the zygote stays idle between forks: else it stops forking.

`worker` is worker.Worker (not imported here: worker.py imports this file) and `census` its
encoded stub census.

The chain is zygote -> keeper -> test worker. unshare(CLONE_NEWPID) puts only the caller's
children in the new PID namespace, so the keeper makes the namespaces and forks the test worker
into them; it then waits, and leaves the test worker's wait status as its own (trusted side reads
it from the keeper's zombie), so a crash is described as a fresh worker's is.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import sys

from . import _linux

# <sched.h>, <linux/prctl.h>
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_DUMPABLE = 4
MAX_FDS = 8  # a fork request carries three descriptors
KEEPER_FAILED = 71  # the keeper's exit status when a fork's set-up failed before the test worker ran


def serve(worker: object, control: socket.socket, proc: int, census: object) -> None:
    """Fork a test worker for each request on `control`, once the import is done and said
    (worker.main): the zygote itself answers no call."""
    worker.rfile.close()
    worker.wfile.close()
    while True:
        try:
            message, fds = _receive(control)
        except OSError:
            os._exit(0)
        if not message:  # the trusted side closed the socket: the grading is over
            os._exit(0)
        _reap()
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            _keeper(worker, control, proc, fds, census)  # never returns
        for fd in fds:
            os.close(fd)
        control.sendall(json.dumps({"forked": pid}).encode() + b"\n")


def _receive(control: socket.socket) -> tuple[bytes, list[int]]:
    """One request and the descriptors that came with it (SCM_RIGHTS)."""
    size = ctypes.sizeof(ctypes.c_int) * MAX_FDS
    data, ancillary, _flags, _addr = control.recvmsg(4096, socket.CMSG_SPACE(size))
    fds: list[int] = []
    for level, kind, raw in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(raw) - len(raw) % ctypes.sizeof(ctypes.c_int)
            fds += list(memoryview(raw[:usable]).cast("i"))
    return data, fds


def _reap() -> None:
    """Wait for the keepers that are done (the trusted side has read their status by now)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _keeper(worker: object, control: socket.socket, proc: int, fds: list[int], census: object) -> None:
    """In the fork: new namespaces, then the test worker inside them; wait for it, end as it did."""
    try:
        control.close()
        req_r, rep_w, out_w = fds
        _close_all_but({req_r, rep_w, out_w, proc})
        _linux.die_with_parent()
        libc = ctypes.CDLL(None, use_errno=True)
        uid, gid = os.getuid(), os.getgid()
        # A process that changed uid is not dumpable: its /proc files are root's, and it could not
        # write its own uid_map. Dumpable for these few steps; the test worker is not again.
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        flags = _linux.CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
        if libc.unshare(flags) != 0:
            os._exit(KEEPER_FAILED)
        _write_maps(proc, 0, uid, gid)
        child = os.fork()
        if child == 0:
            _test_worker(worker, proc, (req_r, rep_w, out_w), census, uid, gid)  # never returns
        for fd in (req_r, rep_w, out_w):
            os.close(fd)
        os.close(proc)
        _pid, status = os.waitpid(child, 0)
    except BaseException:
        os._exit(KEEPER_FAILED)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else KEEPER_FAILED)


def _test_worker(
    worker: object, proc: int, fds: tuple[int, int, int], census: object, uid: int, gid: int
) -> None:
    """PID 1 of the test's namespaces: fresh writable folders, no capabilities, then serve."""
    req_r, rep_w, out_w = fds
    try:
        os.setsid()
        _linux.die_with_parent()
        worker.mount(worker.config["test_mounts"])
        _linux.enter_user_namespace(uid, proc, gid=gid)  # closes `proc`
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        _linux.die_with_parent()
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.close(out_w)
        os.chdir(worker.config["scratch"])
        worker.rfile = os.fdopen(req_r, "rb")
        worker.wfile = os.fdopen(rep_w, "wb")
    except BaseException:
        os._exit(KEEPER_FAILED)
    try:
        worker.send({"ready": True})
        worker.send({"imported": True, "census": census})
        worker.loop()
    except BaseException:
        os._exit(70)
    sys.stdout.flush()
    os._exit(0)


def _write_maps(proc: int, inside: int, uid: int, gid: int) -> None:
    for name, text in (
        ("uid_map", f"{inside} {uid} 1"),
        ("setgroups", "deny"),
        ("gid_map", f"{inside} {gid} 1"),
    ):
        fd = os.open(f"self/{name}", os.O_WRONLY, dir_fd=proc)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor above stderr except `keep`: the zygote's (and whatever the
    submission's import opened) never reach a test."""
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        limit = 65536
    os.closerange(start, max(start, limit))
