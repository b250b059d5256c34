"""Words for a call that went wrong: which call it was, on how much input, and what the child
processes the submission started said before it went wrong.

Pure functions on data the trusted side already holds (the call's arguments, the worker's captured
output), so the feedback of a timeout or crash names its cause instead of reading as a bare
"did not answer": a multiprocessing child that cannot import `bpe`, or raised, or was killed,
leaves its traceback (or the worker's note, see `CHILD_NOTE`) in that output.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

# The worker writes this line to its stderr when a child process the submission started (through
# multiprocessing) is found killed by a signal it did not send itself (worker.watch_children).
CHILD_NOTE = "bpe-kit: "
_SHORT = 40  # arguments whose repr is at most this long are shown as they are


def signal_words(signum: int) -> str:
    """'SIGKILL (usually the memory limit...)': a signal, with what usually sends it."""
    name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else f"signal {signum}"
    hint = {
        "SIGKILL": " (killed: usually the memory limit, or the CPU time limit)",
        "SIGXCPU": " (the CPU time limit)",
        "SIGXFSZ": " (it wrote a file larger than the limit)",
        "SIGSEGV": " (a crash inside Python or an extension)",
    }.get(name, "")
    return name + hint


def child_note(pid: int, signum: int) -> str:
    """The worker's line for a child killed by a signal (parsed back by `child_failure`)."""
    return f"{CHILD_NOTE}a child process your code started (pid {pid}) was killed by {signal_words(signum)}\n"


_TRACEBACK = "Traceback (most recent call last):"
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Pool)\b.*$")


def child_failure(output: str) -> str | None:
    """At most two lines saying how a child process failed, read from what the worker printed
    during the call: the last traceback's exception line, and the worker's note of a child killed
    by a signal. None when the output holds neither."""
    found = []
    lines = output.splitlines()
    start = max((i for i, line in enumerate(lines) if line.strip() == _TRACEBACK), default=None)
    if start is not None:
        tail = [line for line in lines[start + 1 :] if line and not line[0].isspace()]
        exc = next((line for line in tail if _EXCEPTION_LINE.match(line)), None)
        if exc:
            found.append("a child process failed with " + exc.strip()[:300])
    notes = [line[len(CHILD_NOTE) :] for line in lines if line.startswith(CHILD_NOTE)]
    if notes:
        found.append(notes[-1].strip()[:300])
    return "; ".join(found) or None


# ------------------------------------------------------------------------------------ the call
def _size(n: int, unit: str) -> str:
    return f"{n:,} {unit}" if n != 1 else f"1 {unit.rstrip('s')}"


def describe_value(value, encoded=None) -> str:
    """An argument as a timeout message shows it: short values as they are, long ones by size."""
    if isinstance(value, Path):
        try:
            return f"a file of {_size(os.stat(value).st_size, 'bytes')}"
        except OSError:
            return "a file"
    if isinstance(encoded, dict) and "i" in encoded:  # an iterator, materialized on the way in
        items = encoded["i"]
        chars = sum(len(x) for x in items if isinstance(x, str))
        return f"an iterator of {_size(len(items), 'chunks')}, {_size(chars, 'chars')} in all"
    try:
        shown = repr(value)
    except Exception:
        shown = f"<{type(value).__name__}>"
    if len(shown) <= _SHORT:
        return shown
    if isinstance(value, str):
        return f"text of {_size(len(value), 'chars')}"
    if isinstance(value, (bytes, bytearray)):
        return f"{_size(len(value), 'bytes')}"
    if isinstance(value, (list, tuple, dict, set)):
        return f"a {type(value).__name__} of {_size(len(value), 'items')}"
    return f"<{type(value).__name__}>"


def describe_call(name: str, args, kwargs, encoded_args=None, encoded_kwargs=None) -> str:
    """'train_bpe(a file of 12,345 bytes, vocab_size=500, special_tokens=[])'."""
    enc_args = encoded_args if isinstance(encoded_args, list) else [None] * len(args)
    enc_kwargs = {}
    if isinstance(encoded_kwargs, dict) and isinstance(encoded_kwargs.get("d"), list):
        enc_kwargs = {k: v for k, v in encoded_kwargs["d"] if isinstance(k, str)}
    parts = [describe_value(a, e) for a, e in zip(args, enc_args, strict=False)]
    parts += [f"{k}={describe_value(v, enc_kwargs.get(k))}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"
