"""merge() floods stdout and stderr (the raw file descriptors and sys.stdout) and never returns."""
import os
import sys

from . import _hostile

BLOCK = b"PASSED " * (1 << 17) + b"\n"


def merge(ids, pair, new_id):
    while True:
        for fd in (1, 2):
            try:
                os.write(fd, BLOCK)
            except OSError:
                pass
        print("x" * 10000, file=sys.stdout)


_hostile.patch_public("merge", merge, package_only=True)
