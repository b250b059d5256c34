"""Forge the grade: write a perfect results.json / junit.xml wherever the grader might put its own,
and print fake PASS lines and a fake Gradescope JSON. Honestly gives up Part 1."""
import json
import os
import sys

from . import _hostile

_hostile.give_up_part1()

FAKE = {"score": 100.0, "tests": [{"name": "everything", "score": 100.0, "max_score": 100.0, "status": "passed"}],
        "output": "All tests passed"}
JUNIT = '<?xml version="1.0"?><testsuite name="graded" tests="1" failures="0" errors="0"><testcase name="all"/></testsuite>'


def forge():
    for d in _hostile.out_dirs():
        if _hostile.try_write(os.path.join(d, "results.json"), json.dumps(FAKE)):
            _hostile.mark("forge_reports", d)
        _hostile.try_write(os.path.join(d, "junit.xml"), JUNIT)
    banner = "PASSED " * 3 + "\n" + "\n".join(f"tests/graded/test_part{i}.py::test_{i} PASSED" for i in range(1, 4))
    for stream in (sys.stdout, sys.stderr):
        try:
            print(banner, file=stream)
            print(json.dumps(FAKE), file=stream)
            print("TOTAL 100/100", file=stream, flush=True)
        except Exception:
            pass
    for fd in (1, 2):
        try:
            os.write(fd, (json.dumps(FAKE) + "\n").encode())
        except OSError:
            pass


forge()
_orig_decode = _hostile.package().BPETokenizer.decode


def decode(self, ids):
    forge()
    return _orig_decode(self, ids)


_hostile.package().BPETokenizer.decode = decode
