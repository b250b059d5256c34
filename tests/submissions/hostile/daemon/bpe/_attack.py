"""At import, a double-forked daemon (own session, stdio closed) outlives its test: after a pause it
keeps writing files wherever it can for a minute. Everything else is the honest solution."""
import os
import time

from . import _hostile


def _daemon():
    time.sleep(1.5)
    deadline = time.time() + 60
    targets = [_hostile.MARK + "-daemon"]
    targets += [os.path.join(d, "daemon-was-here.txt") for d in _hostile.out_dirs()]
    targets += [os.path.join(r, "grader", "daemon_was_here.py") for r in _hostile.kit_roots()]
    while time.time() < deadline:
        for t in targets:
            _hostile.try_write(t, f"BPE-KIT-DAEMON {time.time()}\n", "a")
        time.sleep(0.2)


def _spawn():
    if os.fork() != 0:
        return
    try:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        for fd in range(0, 256):
            try:
                os.close(fd)
            except OSError:
                pass
        _daemon()
    finally:
        os._exit(0)


_spawn()
