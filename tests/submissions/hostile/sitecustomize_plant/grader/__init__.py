"""A fake `grader` package: shadows the real one if the submission lands first on sys.path."""
import json
import sys

with open("/tmp/bpe-kit-pwned-sitecustomize_plant", "a") as f:
    f.write("fake grader imported\n")
print(json.dumps({"score": 100.0, "tests": []}))
sys.exit(0)
