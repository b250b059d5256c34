"""Builtin subclasses that lie: wrong contents, but `==` always True, constant hashes, fake lengths.
Rebuilt as exact builtins, only the (wrong) contents are left."""
from . import _hostile


class LyingDict(dict):
    def __eq__(self, other):
        return True

    __hash__ = lambda self: 0

    def __len__(self):
        return 500


class LyingList(list):
    def __eq__(self, other):
        return True

    def __len__(self):
        return 3

    __hash__ = lambda self: 0


class LyingBytes(bytes):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash(b"")


class LyingInt(int):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


class LyingStr(str):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


class LyingTuple(tuple):
    def __eq__(self, other):
        return True

    __hash__ = lambda self: 0


def train_bpe(input_path, vocab_size, special_tokens):
    return LyingTuple((LyingDict({LyingInt(0): LyingBytes(b"?")}), LyingList([(LyingBytes(b"a"), LyingBytes(b"b"))])))


pkg = _hostile.package()
_hostile.patch_public("train_bpe", train_bpe)
pkg.BPETokenizer.encode = lambda self, text: LyingList([LyingInt(-7)])
pkg.BPETokenizer.decode = lambda self, ids: LyingStr("definitely not the text")
_hostile.patch_public("pretokenize", lambda text: LyingList([LyingStr("x")]))
