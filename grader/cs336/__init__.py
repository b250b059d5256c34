"""The `cs336` contract: grade a Stanford CS336 assignment-1 repository as it is.

intake.py stages the repository behind a stdlib-only `bpe` shim (shim.py) that the sandboxed worker
imports like any submission; contract.py says which graded tests apply and how CS336's rules differ.
"""
