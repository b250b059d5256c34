"""Grade a whole class: batch, shard, merge, gradebook and an HTML report.

Every submission is one run of the graded suite (grader/suite/runner.py's pytest process, scored with the
rubric as a single grading is) under its own wall-clock budget, so a student who wedges the grader
costs only their own slot. Each student's results are committed atomically, with the fingerprints
of what graded them, so an interrupted run loses nothing and a rerun regrades exactly what is not
current (see batch.py).
"""
