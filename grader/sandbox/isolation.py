"""The isolation a worker gets, as results.json, the gradebook and every message name it.

One list, strongest first, and the one rule choosing among them (`level`): the sandbox applies it
to this process (grader/sandbox/box.py), and the README's table of where the kit runs applies it to
each engine's conditions (grader/release/engines.py), so the two cannot disagree.
"""

from __future__ import annotations

from enum import StrEnum


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
