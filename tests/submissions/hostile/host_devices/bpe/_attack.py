"""BPETokenizer.decode() looks for the host's devices and runtime files (a disk that a `disk` group
could read, /run/docker.sock): it fails loudly, naming what it saw, if it sees any; else it answers
honestly."""
import os

from . import _hostile

# All a worker's /dev may hold: the devices Python needs and its own /dev/shm.
ALLOWED = {"null", "zero", "full", "random", "urandom", "shm"}
_orig = _hostile.package().BPETokenizer.decode


def decode(self, ids):
    seen = []
    for folder, allowed in (("/dev", ALLOWED), ("/run", set()), ("/var/run", set())):
        try:
            seen += [f"{folder}/{n}" for n in sorted(os.listdir(folder)) if n not in allowed]
        except OSError:
            pass
    if seen:
        raise RuntimeError("BPE-KIT-HOST-VISIBLE: " + " ".join(seen[:20]))
    return _orig(self, ids)


_hostile.package().BPETokenizer.decode = decode
