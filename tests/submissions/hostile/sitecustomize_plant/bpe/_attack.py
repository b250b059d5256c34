"""Ships sitecustomize/usercustomize and fake `grader`/`pytest` packages next to bpe/; gives up Part 1."""
from . import _hostile

_hostile.give_up_part1()
