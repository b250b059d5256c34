"""decode() ends the worker process (os._exit(0), status 0: looks like a clean exit)."""
import os
import sys

from . import _hostile


def decode(self, ids):
    sys.stdout.flush()
    os._exit(0)


_hostile.package().BPETokenizer.decode = decode
