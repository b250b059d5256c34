"""Ships conftest.py files (root and package) that would make pytest pass everything; gives up Part 1."""
from . import _hostile

_hostile.give_up_part1()
