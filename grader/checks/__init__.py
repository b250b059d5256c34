"""Failure diagnostics for the graded suite.

Everything here runs on the TRUSTED side and explains a student's divergence in words a first-year
student understands. What a correct tokenizer would do comes from the golden fixtures
(data/fixtures/, read with grader/bpe_facts/), written by `make fixtures` with the trusted oracles
(grader/oracles/: slow, obviously correct, and instructor-only). The handout ships neither them nor
the reference solution, and the checks never import them. Some proofs that a fault is the only one
of a failure replay the trusted trainer or encoder (grader/charges.py): the suite hands them over
as `bpe.kit.oracles` (grader/suite/trusted.py); without them (None, the handout) those proofs prove
nothing, and each failure is charged as usual.
"""
