"""The bpe-kit autograder: grades one `bpe` package without ever trusting it."""
