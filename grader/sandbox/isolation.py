"""The isolation a worker gets, as results.json, the gradebook and every message name it, and how
this machine decides it.

One list, strongest first, and the one rule choosing among them (`level`): the sandbox applies it
to this process (`isolation_level`, from what the machine allows: namespaces, `namespaces_refused`;
an interpreter an unprivileged uid can run, `unprivileged_python`), and the README's table of where
the kit runs applies it to each engine's conditions (grader/release/engines.py), so the two cannot
disagree. How a worker enters its level is the sandbox's (grader/sandbox/box.py).

Why `unshare` rather than bubblewrap: util-linux's `unshare` is on every Linux the kit grades on,
Slurm nodes and containers included, where a user cannot install packages; the root sandbox already
uses it; and one mount plan (`box.Sandbox.mount_plan`, run by worker.apply_mounts) then serves both.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from enum import StrEnum
from pathlib import Path


class Isolation(StrEnum):
    """A worker's isolation; the value is what results.json and the gradebook record."""

    NAMESPACES_UID = "namespaces+uid"  # root: PID, mount, net, IPC namespaces, then the sandbox's uid
    USERNS = "userns"  # an ordinary user: the same namespaces, inside a user namespace
    UID = "uid"  # root without namespaces: the sandbox's own uid (box.SANDBOX_IDS) and rlimits
    PROCESS_GROUP = "process-group"  # neither: the grading user, in a session of its own, rlimits
    INPROCESS = "inprocess"  # `grade --inprocess`, for debugging: no worker and no grade written


# Levels where the worker cannot reach the kit, the outputs or the grader's processes.
NAMESPACED = frozenset({Isolation.NAMESPACES_UID, Isolation.USERNS})
# Levels that a grade reached only because namespaces were refused: it says why.
WITHOUT_NAMESPACES = frozenset({Isolation.UID, Isolation.PROCESS_GROUP})


def level(*, root: bool, namespaces: bool, uid_drop: bool) -> Isolation:
    """The isolation of a worker started by root or an ordinary user (`root`), where namespaces can
    be made (`namespaces`: as root plainly, as an ordinary user inside a user namespace) and where
    root can run an interpreter as an unprivileged uid (`uid_drop`: probed as uid 65534)."""
    if namespaces:
        return Isolation.NAMESPACES_UID if root else Isolation.USERNS
    return Isolation.UID if root and uid_drop else Isolation.PROCESS_GROUP


# What `--isolation` may ask for: the strongest available, or one of the weaker fallbacks.
LEVELS = ("auto", Isolation.UID, Isolation.PROCESS_GROUP)

NOBODY = 65534  # the probe of an interpreter any uid may run; a worker in a user namespace

# `unshare` options of a worker: as root, or (USERNS) as an ordinary user mapped to root inside.
UNSHARE = ("--pid", "--fork", "--mount", "--net", "--ipc", "--kill-child")
USERNS = ("--user", "--map-root-user")
# The kernel settings that refuse an ordinary user a user namespace: (file, value that refuses, fix).
USERNS_SWITCHES = (
    ("/proc/sys/kernel/unprivileged_userns_clone", "0", "sysctl kernel.unprivileged_userns_clone=1"),
    ("/proc/sys/user/max_user_namespaces", "0", "sysctl user.max_user_namespaces=15000"),
    (
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "1",
        "sysctl kernel.apparmor_restrict_unprivileged_userns=0",
    ),
)


def unshare_argv() -> list[str]:
    """How this process makes a worker's namespaces: plain as root, through a user namespace otherwise."""
    return ["unshare", *(() if os.geteuid() == 0 else USERNS), *UNSHARE]


@functools.lru_cache(maxsize=1)
def namespaces_available() -> bool:
    """An `unshare` binary, and a kernel that lets this process make PID+mount+net namespaces
    (as an ordinary user: inside a user namespace of its own)."""
    return namespaces_refused() is None


@functools.lru_cache(maxsize=1)
def namespaces_refused() -> str | None:
    """Why workers get no namespaces here, in one line naming what would allow them; None if they do."""
    if not sys.platform.startswith("linux"):
        return f"{sys.platform} has no Linux namespaces (grade on Linux for them)"
    if shutil.which("unshare") is None:
        return "no `unshare` command (util-linux) on PATH"
    try:
        probe = subprocess.run([*unshare_argv(), "true"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`unshare` did not run ({e})"
    if probe.returncode == 0:
        return None
    if os.geteuid() == 0:
        return "`unshare` failed as root (a container without CAP_SYS_ADMIN?)"
    for path, refusing, fix in USERNS_SWITCHES:
        try:
            if Path(path).read_text().strip() == refusing:
                return f"this kernel refuses ordinary users a user namespace ({path} is {refusing}; `{fix}` as root allows it)"
        except OSError:
            continue
    why = probe.stderr.strip().splitlines()[-1:] or ["no reason given"]
    return f"user namespaces are refused here (`unshare --user` said: {why[0]})"


# Groups whose members reach the host's root or its raw devices by what they open (a container
# daemon's socket, a disk, a VM's device, the password hashes). The mount plan covers /dev and /run,
# where most of that lives, but a daemon may listen elsewhere: a class is not graded with these.
PRIVILEGED_GROUPS = frozenset(
    {"root", "disk", "docker", "lxd", "incus", "libvirt", "kvm", "shadow", "podman"}
)


def kept_groups() -> list[str]:
    """The supplementary groups an ordinary user's worker keeps (by name): a user namespace may not
    drop them (setgroups is denied), so the worker can open what they open outside what the mount
    plan covers. Empty for root, whose workers drop every group."""
    if os.geteuid() == 0:
        return []
    import grp

    names = []
    for gid in sorted(set(os.getgroups()) - {os.getgid()}):
        try:
            names.append(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.append(str(gid))
    return names


def _interpreters() -> list[str]:
    """The grader's own interpreter first, then system ones of the same version (the worker loads
    the grader's compiled `regex`, so the version must match)."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    found = [os.path.realpath(sys._base_executable)]
    for candidate in (f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        if os.path.isfile(candidate) and os.path.realpath(candidate) not in found:
            found.append(os.path.realpath(candidate))
    return found


@functools.lru_cache(maxsize=1)
def unprivileged_python() -> str | None:
    """As root: an interpreter that uid 65534 can run where it is, or None."""
    if os.geteuid() != 0:
        return None
    probe = f"import sys, json, ctypes; assert sys.version_info[:2] == {tuple(sys.version_info[:2])!r}"
    for python in _interpreters():
        try:
            if (
                subprocess.run(
                    [python, "-S", "-s", "-c", probe],
                    user=NOBODY,
                    group=NOBODY,
                    extra_groups=[],
                    cwd="/",
                    capture_output=True,
                    timeout=20,
                ).returncode
                == 0
            ):
                return python
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def uid_drop_available() -> bool:
    return unprivileged_python() is not None


def isolation_level(namespaces: bool | None = None, unprivileged: bool | None = None) -> Isolation:
    """What a worker started by this process will get (`level`); `namespaces` None: whether they
    can be made here, `unprivileged` False: no uid drop without them."""
    if namespaces is None:
        namespaces = namespaces_available()
    uid_drop = not namespaces and unprivileged is not False and uid_drop_available()
    return level(root=os.geteuid() == 0, namespaces=namespaces, uid_drop=uid_drop)
