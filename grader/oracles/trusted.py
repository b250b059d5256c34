"""What the checks may ask of the oracles, handed to them as data.

The checks never import the oracles (the handout ships the checks without them): the suite's
plugin sets `bpe.kit.oracles` to this module where the kit has the oracles, None where it has not,
and a check proves a fault the only one of a failure (grader/charges.py) only with it.
"""

from grader.oracles import char_bpe
from grader.oracles.encoder import TrustedEncoder
from grader.oracles.trainer import PairCounts, Replay, greedy, initial_vocab, pretokens, split_on_specials

__all__ = [
    "PairCounts",
    "Replay",
    "TrustedEncoder",
    "char_bpe",
    "greedy",
    "initial_vocab",
    "pretokens",
    "split_on_specials",
]
