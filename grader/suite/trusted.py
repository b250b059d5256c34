"""The trusted oracles, where this kit has them, for the checks: `bpe.kit.oracles`.

The handout leaves grader/oracles/ out (grader/release/contents.py): there the checks get None
and prove no fault the only one, so each failure is charged as it is (grader/charges.py).
"""

from __future__ import annotations

import importlib.util
from types import ModuleType


def oracles_here() -> bool:
    """Are the trusted oracles installed (the kit, Gradescope), not left out (the handout)?"""
    return importlib.util.find_spec("grader.oracles") is not None


def oracles() -> ModuleType | None:
    """grader/oracles/trusted.py, what the checks may ask of the oracles; None without them."""
    if not oracles_here():
        return None
    from ..oracles import trusted  # only here: the handout has no oracles

    return trusted
