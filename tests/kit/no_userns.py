"""`python no_userns.py ARGV...`: run ARGV as this (ordinary) user where no user namespace may be
made, as on a kernel with `user.max_user_namespaces=0` (or Ubuntu's AppArmor restriction, macOS,
WSL1), without root and without touching the machine's settings.

It makes one user namespace, mapping the user to itself, and sets that namespace's own limit of
user namespaces to 0 (each namespace has its own, and its maker may lower it); ARGV, run there as
the same user with no capabilities, then sees /proc/sys/user/max_user_namespaces read 0 and every
`unshare --user` fail, as on such a kernel.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python no_userns.py ARGV...")
    if os.geteuid() == 0:
        sys.exit("no_userns.py: run it as an ordinary user (root's grades make no user namespace)")
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) != 0:
        sys.exit(f"no_userns.py: unshare(CLONE_NEWUSER): {os.strerror(ctypes.get_errno())}")
    for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text + "\n")
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0\n")
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
