"""A CS336-shaped repository around the kit's reference BPE (copied in as cs336_basics/bpe/ when built).

As CS336's skeleton does, it reads its version from its installed metadata: graded without being
installed, it imports only if the grader provides that metadata (grader/cs336/intake.py)."""

import importlib.metadata

__version__ = importlib.metadata.version("cs336_basics")
