"""A fake `pytest`: shadows the real one if the submission lands first on sys.path."""
import sys

with open("/tmp/bpe-kit-pwned-sitecustomize_plant", "a") as f:
    f.write("fake pytest imported\n")
sys.exit(0)
