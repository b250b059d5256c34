"""encode_iterable() yields ids for ever: it must be stopped at a bound on the ids its input could
give, in seconds, not at the test's time limit with millions of ids piled up in the grader."""
from . import _hostile


def encode_iterable(self, iterable):
    for _chunk in iterable:
        break
    while True:
        yield 0


_hostile.package().BPETokenizer.encode_iterable = encode_iterable
