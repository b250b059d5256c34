"""Answer with objects that claim to equal anything: `__eq__` always True, constant hash, any length."""
from . import _hostile


class Liar:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0

    def __len__(self):
        return 1

    def __iter__(self):
        return iter(())

    def __getitem__(self, item):
        return self

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__

    def __repr__(self):
        return "[1, 2, 3]"


pkg = _hostile.package()
pkg.BPETokenizer.encode = lambda self, text: Liar()
pkg.BPETokenizer.decode = lambda self, ids: Liar()
_hostile.patch_public("merge", lambda ids, pair, new_id: Liar())
