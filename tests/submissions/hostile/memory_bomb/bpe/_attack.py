"""CharBPE.decode() allocates (and touches) memory until the allocator refuses, then fails."""
from . import _hostile

_hoard = []


def decode(self, ids):
    try:
        while True:
            _hoard.append(bytearray(64 << 20))  # bytearray zero-fills: the pages are really used
    except MemoryError:
        _hoard.clear()
        raise


_hostile.package().CharBPE.decode = decode
