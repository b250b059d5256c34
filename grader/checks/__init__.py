"""Failure diagnostics for the graded suite.

Everything here runs on the TRUSTED side and explains a student's divergence in words a first-year
student understands. What a correct tokenizer would do comes from the golden fixtures
(data/fixtures/), written by `make fixtures` with the trusted oracles of this package (char_bpe.py,
trainer.py, encoder.py, wrong_rules.py, recorder.py): slow, obviously correct, and instructor-only.
The handout ships neither them nor the reference solution; nothing a public test imports needs them.
Some proofs that a fault is the only one of a failure replay the trusted trainer or encoder
(grader/charges.py): without the oracles (`oracles_here`), they prove nothing, and each failure is
charged as usual.
"""

import importlib.util


def oracles_here() -> bool:
    """Are the trusted oracles installed (the kit, Gradescope), not left out (the handout)?"""
    return importlib.util.find_spec("grader.oracles") is not None
