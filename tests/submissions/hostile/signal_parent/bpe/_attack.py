"""BPETokenizer.encode() shoots its parent (SIGKILL, then SIGTERM) before answering honestly."""
import os
import signal

from . import _hostile

_orig_encode = _hostile.package().BPETokenizer.encode


def encode(self, text):
    for sig in (signal.SIGKILL, signal.SIGTERM):
        try:
            os.kill(os.getppid(), sig)
        except OSError:
            pass
    return _orig_encode(self, text)


_hostile.package().BPETokenizer.encode = encode
