"""The Linux system calls the grader makes through libc, with their constants named.

Stdlib only: this file is also copied into the sandbox, where the worker uses it before the
student's code exists. Elsewhere than Linux there is no prctl: the calls report False.
"""

from __future__ import annotations

import ctypes
import os
import signal

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
# <sys/mount.h>
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int) -> bool:
    try:
        return _libc().prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent_pid: int | None = None) -> bool:
    """SIGKILL this process when its parent dies, even killed outright with no cleanup.

    With `parent_pid`, a parent that died before the call took effect ends this process now.
    A change of uid clears the setting, so a process that drops privileges calls this again.
    """
    done = _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if done and parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)
    return done


def become_subreaper() -> bool:
    """Adopt the orphans of this process's descendants (instead of init), so they can be reaped."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    """mount(2); raises OSError naming the mount."""
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    if _libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {source} on {target}: {os.strerror(errno)}")
