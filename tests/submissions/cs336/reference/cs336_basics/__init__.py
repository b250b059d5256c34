"""A CS336-shaped repository around the kit's reference BPE (copied in as cs336_basics/bpe/ when built)."""
