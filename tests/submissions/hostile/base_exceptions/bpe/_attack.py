"""BaseException subclasses that are not errors: KeyboardInterrupt, GeneratorExit and a custom one.
Forwarded naively to the trusted side, KeyboardInterrupt would stop the whole grading run."""
from . import _hostile


class Escape(BaseException):
    """Not an Exception: `except Exception` does not catch it."""


pkg = _hostile.package()


def decode(self, ids):
    raise KeyboardInterrupt


def encode_iterable(self, iterable):
    raise GeneratorExit
    yield  # pragma: no cover  (makes this a generator)


def char_train(cls, text, num_merges):
    raise Escape("out of here")


pkg.BPETokenizer.decode = decode
pkg.BPETokenizer.encode_iterable = encode_iterable
pkg.CharBPE.train = classmethod(char_train)
