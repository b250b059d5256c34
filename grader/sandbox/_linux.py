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
PR_SET_NO_NEW_PRIVS = 38
# <sys/mount.h>
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_RELATIME = 1 << 21
MNT_DETACH = 2
# statvfs f_flag bits of a mount, and the mount flag each stands for
_ST_TO_MS = {8: MS_NOEXEC, 1024: MS_NOATIME, 2048: MS_NODIRATIME, 4096: MS_RELATIME}
# <sched.h>, <linux/capability.h>
CLONE_NEWUSER = 0x10000000
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


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


def umount(target: str) -> None:
    """umount2(MNT_DETACH); raises OSError naming the mount."""
    if _libc().umount2(target.encode(), ctypes.c_int(MNT_DETACH)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"umount {target}: {os.strerror(errno)}")


def kept_flags(path: str) -> int:
    """The flags of the mount at `path` that a user namespace may not clear (noexec, atime):
    a read-only remount of a bind must repeat them, or the kernel refuses it."""
    f_flag = os.statvfs(path).f_flag
    return sum(ms for st, ms in _ST_TO_MS.items() if f_flag & st)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _check(ok: bool, what: str) -> None:
    if not ok:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def enter_user_namespace(uid: int, proc: int, gid: int | None = None) -> None:
    """Become `uid` (and `gid`, else `uid` again) of a new user namespace, mapped to this
    process's uid and gid, with no capabilities left and none to gain (no_new_privs).

    Called by root of a user namespace after its mounts: the mounts and the PID namespace belong
    to the namespace it leaves, over which it now has no power (it cannot unmount what covers the
    kit), and its files are still the invoking user's outside. `proc`: a descriptor of /proc opened
    before the mounts covered it (this namespace's maps are written through it), closed here."""
    libc = _libc()
    outer_uid, outer_gid = os.getuid(), os.getgid()
    _check(libc.unshare(CLONE_NEWUSER) == 0, "unshare(CLONE_NEWUSER)")
    for name, text in (
        ("uid_map", f"{uid} {outer_uid} 1"),
        ("setgroups", "deny"),
        ("gid_map", f"{uid if gid is None else gid} {outer_gid} 1"),
    ):
        with open(f"self/{name}", "w", opener=lambda path, flags: os.open(path, flags, dir_fd=proc)) as f:
            f.write(text)
    os.close(proc)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    _check(libc.capset(ctypes.byref(header), (_CapData * 2)()) == 0, "capset")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "prctl(PR_SET_NO_NEW_PRIVS)")
