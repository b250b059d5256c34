"""Grade a whole class: batch, shard, merge, gradebook and an HTML report.

Every submission goes through the one-submission API (`grader.api.grade`) in its own child process
with its own wall-clock budget, so a student who wedges the grader costs only their own slot.
Results are written one student at a time and atomically, so an interrupted run loses nothing and a
rerun picks up where it stopped.
"""
