"""Failure diagnostics for the graded suite.

Everything here runs on the TRUSTED side: it recomputes what a correct tokenizer would do (slowly but
obviously correctly) and explains a student's divergence in words a first-year student understands.
Nothing here imports the reference solution, which is not shipped with the handout.
"""
