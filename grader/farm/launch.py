"""`python -m grader.farm.launch PARENT_PID -- ARGV...`: exec ARGV so that it dies with the farm.

The farm grades students from threads, where `preexec_fn` is unsafe; so the suite's pytest process
is started through this module, which asks Linux to SIGKILL it when the farm dies (even by
SIGKILL) and then replaces itself with ARGV (exec: no extra process is left in between).
"""

from __future__ import annotations

import os
import sys

from ..sandbox import die_with_parent


def main(argv: list[str]) -> None:
    parent, sep, *command = argv
    if sep != "--" or not command:
        sys.exit("usage: python -m grader.farm.launch PARENT_PID -- ARGV...")
    # Not Linux: the farm still kills the process group on every way out it sees. A farm that died
    # before the request took effect ends this process now.
    if not die_with_parent(int(parent)) and os.getppid() != int(parent):
        os._exit(1)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
