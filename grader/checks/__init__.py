"""Failure diagnostics for the graded suite.

Everything here runs on the TRUSTED side and explains a student's divergence in words a first-year
student understands. What a correct tokenizer would do comes from the golden fixtures
(data/fixtures/), written by `make fixtures` with the trusted oracles of this package (char_bpe.py,
trainer.py, encoder.py, wrong_rules.py, recorder.py): slow, obviously correct, and instructor-only.
The handout ships neither them nor the reference solution; nothing a public test imports needs them.
"""
