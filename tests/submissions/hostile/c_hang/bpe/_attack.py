"""pretokenize() hangs where no Python-level timeout can reach it: every catchable signal is blocked
and ignored, then the worker spins in catastrophic regex backtracking. Only SIGKILL ends it."""
import re
import signal

from . import _hostile

_original = _hostile.package().pretokenize


def pretokenize(text):
    signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP, signal.SIGUSR1, signal.SIGXCPU):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass
    while True:
        re.match(r"(a|aa|aaa)*(b|bb)*c$", "a" * 90 + "b" * 90 + "d")
    return _original(text)


_hostile.patch_public("pretokenize", pretokenize, package_only=True)
