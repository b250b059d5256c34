"""Child process that grades exactly one submission (`python -m grader.farm.worker`).

Grading runs pytest in the trusted process, so every student gets a fresh interpreter: nothing a
previous student's run imported, cached or leaked can touch the next one, and the parent can kill
the whole process group when the student's wall-clock budget is spent.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import importlib.util
import json
import os
import signal
import sys
from pathlib import Path

from grader.errors import SubmissionError

DEFAULT_GRADE_FN = "grader.api:grade"
PR_SET_PDEATHSIG = 1
EXIT_UNREADABLE = 4  # the grader refused the submission itself (too big, no package...): not its fault


def refused_submission(exc: BaseException) -> bool:
    """True when the grader refused the submission itself, not its own failure."""
    return isinstance(exc, SubmissionError)


def load_grade_fn(spec: str):
    """'pkg.module:func' or '/path/to/file.py:func' -> the callable."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise ValueError(f"grade function {spec!r}: expected module:function")
    if target.endswith(".py"):
        s = importlib.util.spec_from_file_location(Path(target).stem, target)
        module = importlib.util.module_from_spec(s)
        s.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    return getattr(module, attr)


def die_with_parent(parent_pid: int) -> None:
    """Linux: if the farm is killed outright (SIGKILL, OOM), its graders go with it, not on as orphans."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.farm.worker")
    ap.add_argument("submission", type=Path, help="a directory containing bpe/")
    ap.add_argument("out", type=Path)
    ap.add_argument("--grade-fn", default=DEFAULT_GRADE_FN)
    ap.add_argument("--timeout-total", type=float, default=None)
    ap.add_argument("--grade-kwargs", default="{}", help="extra keyword arguments, as JSON")
    ap.add_argument("--parent-pid", type=int, default=None)
    args = ap.parse_args(argv)
    if args.parent_pid:
        die_with_parent(args.parent_pid)
    grade = load_grade_fn(args.grade_fn)
    kwargs = json.loads(args.grade_kwargs)
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        results = grade(args.submission, args.out, timeout_total=args.timeout_total, **kwargs)
    except Exception as e:
        if refused_submission(e):
            print(f"\n{e}", file=sys.stderr)
            return EXIT_UNREADABLE
        raise
    if not isinstance(results, dict):
        raise TypeError(f"grade function returned {type(results).__name__}, not a results dict")
    (args.out / "farm-results.json").write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
