"""Words for a call that went wrong: which call it was, on how much input, what the child
processes the submission started said before it went wrong, and why it was stopped (which limit,
with its figures) or what it raised.

Pure functions on data the trusted side already holds (the call's arguments, the worker's captured
output, the limits and what the call used), so the feedback of a timeout or crash names its cause
instead of reading as a bare "did not answer": a multiprocessing child that cannot import `bpe`, or
raised, or was killed, leaves its traceback (or the worker's note, see `CHILD_NOTE`) in that output.
The session (session.py) decides which of these words a failure gets; only they are worded here.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path

try:
    from ..i18n import N_, _, ngettext, sentences
except ImportError:  # in the worker, whose package is grader/sandbox alone (box.py): its notes are English

    def _(message: str) -> str:
        return message

    N_ = _

    def ngettext(singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural

    def sentences(*parts: str) -> str:
        return " ".join(p for p in parts if p)


# The worker writes this line to its stderr when a child process the submission started (through
# multiprocessing) is found killed by a signal it did not send itself (worker.watch_children).
CHILD_NOTE = "bpe-kit: "
_SHORT = 40  # arguments whose repr is at most this long are shown as they are


def signal_words(signum: int) -> str:
    """'SIGKILL (usually the memory limit...)': a signal, with what usually sends it."""
    name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else f"signal {signum}"
    hint = SIGNAL_HINTS.get(name)
    return _("{signal} ({why})").format(signal=name, why=_(hint)) if hint else name


SIGNAL_HINTS = {
    "SIGKILL": N_("killed: usually the memory limit, or the CPU time limit"),
    "SIGXCPU": N_("the CPU time limit"),
    "SIGXFSZ": N_("it wrote a file larger than the limit"),
    "SIGSEGV": N_("a crash inside Python or an extension"),
}


def child_note(pid: int, signum: int) -> str:
    """The worker's line for a child killed by a signal (parsed back by `child_failure`); the worker
    runs in the sandbox, in English: the trusted side words it again (`_killed_child`)."""
    return f"{CHILD_NOTE}a child process your code started (pid {pid}) was killed by {signal_words(signum)}\n"


_NOTE = re.compile(
    r"a child process your code started \(pid (\d+)\) was killed by (SIG[A-Z0-9]+|signal (\d+))"
)


def _killed_child(note: str) -> str:
    """A worker's `child_note`, in the report's language (the note as it is if it is not one)."""
    m = _NOTE.match(note)
    if not m:
        return note
    name = m.group(2)
    signum = int(m.group(3)) if m.group(3) else getattr(signal.Signals, name, None)
    if signum is None:
        return note
    return _("a child process your code started (pid {pid}) was killed by {signal}").format(
        pid=m.group(1), signal=signal_words(int(signum))
    )


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
            found.append(_("a child process failed with {error}").format(error=exc.strip()[:300]))
    notes = [line[len(CHILD_NOTE) :] for line in lines if line.startswith(CHILD_NOTE)]
    if notes:
        found.append(_killed_child(notes[-1].strip()[:300]))
    return "; ".join(found) or None


def likely_cause(failure: str) -> str:
    """'The likely cause: a child process failed with ...' (`child_failure`'s words)."""
    return _("The likely cause: {failure}.").format(failure=failure)


# ------------------------------------------------------------------------------------ the call
def describe_value(value: object, encoded: object = None) -> str:
    """An argument as a timeout message shows it: short values as they are, long ones by size."""
    if isinstance(value, Path):
        try:
            n = os.stat(value).st_size
        except OSError:
            return _("a file")
        return ngettext("a file of {count} byte", "a file of {count} bytes", n).format(count=f"{n:,}")
    if isinstance(encoded, dict) and "i" in encoded:  # an iterator, materialized on the way in
        items = encoded["i"]
        chars = sum(len(x) for x in items if isinstance(x, str))
        return _("an iterator of {chunks}, {chars} in all").format(
            chunks=ngettext("{count} chunk", "{count} chunks", len(items)).format(count=f"{len(items):,}"),
            chars=ngettext("{count} char", "{count} chars", chars).format(count=f"{chars:,}"),
        )
    try:
        shown = repr(value)
    except Exception:
        shown = f"<{type(value).__name__}>"
    if len(shown) <= _SHORT:
        return shown
    n = f"{len(value):,}" if isinstance(value, (str, bytes, bytearray, list, tuple, dict, set)) else ""
    if isinstance(value, str):
        return ngettext("text of {count} char", "text of {count} chars", len(value)).format(count=n)
    if isinstance(value, (bytes, bytearray)):
        return ngettext("{count} byte", "{count} bytes", len(value)).format(count=n)
    if isinstance(value, (list, tuple, dict, set)):
        return _("a {kind} of {items}").format(
            kind=type(value).__name__,
            items=ngettext("{count} item", "{count} items", len(value)).format(count=n),
        )
    return f"<{type(value).__name__}>"


# The contract's parameter names (starter/bpe/), so that a call reads like the student's own code:
# its first argument as it is, the others by name ('train_bpe(a file of 911 bytes, vocab_size=300,
# special_tokens=[])'). A call the table does not know shows its arguments as the test passed them.
PARAMETERS = {
    "merge": ("ids", "pair", "new_id"),
    "CharBPE.train": ("text", "num_merges"),
    "split_on_special_tokens": ("text", "special_tokens"),
    "train_bpe": ("input_path", "vocab_size", "special_tokens"),
    "BPETokenizer": ("vocab", "merges", "special_tokens"),
    "BPETokenizer.from_files": ("vocab_filepath", "merges_filepath", "special_tokens"),
    "BPETokenizer.save": ("vocab_filepath", "merges_filepath"),
}


def describe_call(
    name: str,
    args: Sequence[object],
    kwargs: Mapping[str, object],
    encoded_args: object = None,
    encoded_kwargs: object = None,
) -> str:
    """'train_bpe(a file of 12,345 bytes, vocab_size=500, special_tokens=[])'."""
    enc_args = encoded_args if isinstance(encoded_args, list) else [None] * len(args)
    enc_kwargs = {}
    if isinstance(encoded_kwargs, dict) and isinstance(encoded_kwargs.get("d"), list):
        enc_kwargs = {k: v for k, v in encoded_kwargs["d"] if isinstance(k, str)}
    names = PARAMETERS.get(name, ())
    parts = [
        (f"{names[i]}=" if 0 < i < len(names) else "") + describe_value(a, e)
        for i, (a, e) in enumerate(zip(args, enc_args, strict=False))
    ]
    parts += [f"{k}={describe_value(v, enc_kwargs.get(k))}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


# ------------------------------------------------------------------------------------ a stall
WAITING = "waiting"  # its CPU time did not move: a sleep, a lock, a child that never answers
OVERLOADED = "overloaded"  # it worked all along, but got a small share of one core (children, a busy machine)
BUSY = "busy"  # it used the CPU all along: an endless loop, or far too slow
# A call "works steadily" when, over the last half of its wall time, it got at least this share of
# one core; "waits" when its CPU time moved by less than STILL_SHARE of the wall time there.
STEADY_SHARE = 0.05
STILL_SHARE = 0.01
OVERLOAD_RATIO = 0.5  # CPU below half the wall time, while steady: the machine, not the code


def stall_kind(samples: list[tuple[float, float]]) -> str:
    """Why a call ran long, from (wall seconds, CPU seconds) samples taken since it started
    (`WorkerProcess.cpu_samples`): WAITING when its CPU time stood still over the last half of
    the wall time, OVERLOADED when it advanced steadily but far slower than the wall clock (its
    child processes did the work, or other programs had the cores), else BUSY."""
    if len(samples) < 2:
        return BUSY
    wall_end, cpu_end = samples[-1]
    half = [s for s in samples if s[0] <= wall_end / 2] or samples[:1]
    wall_mid, cpu_mid = half[-1]
    tail_wall, tail_cpu = wall_end - wall_mid, cpu_end - cpu_mid
    if tail_wall <= 0:
        return BUSY
    if tail_cpu < STILL_SHARE * tail_wall:
        return WAITING
    if tail_cpu >= STEADY_SHARE * tail_wall and cpu_end < OVERLOAD_RATIO * wall_end:
        return OVERLOADED
    return BUSY if tail_cpu >= STEADY_SHARE * tail_wall else WAITING


def stall_words(kind: str, wall_s: float, cpu_s: float, still: bool = False) -> str:
    """One sentence on why a call that ran out of wall-clock time ran long; `still`: it was stopped
    because its CPU time stood still for `wall_s` seconds (grader/sandbox/process.IDLE_S)."""
    if still:
        return _(
            "it used no CPU time for {wall_s:.0f} s, and nothing of it was running: is it waiting on "
            "something that never comes (a child process that died, a lock, a queue, a sleep)?"
        ).format(wall_s=wall_s)
    if kind == OVERLOADED:
        return _(
            "It was working all along, but got only {cpu_s:.1f} s of CPU time in {wall_s:.1f} s, and its "
            "wall-clock limit ran out first (the time its child processes took is not in these figures)."
        ).format(cpu_s=cpu_s, wall_s=wall_s)
    if kind == WAITING:
        return _(
            "Its CPU time stood still ({cpu_s:.1f} s in {wall_s:.1f} s): is it waiting on something "
            "(a sleep, a lock, a child process)?"
        ).format(cpu_s=cpu_s, wall_s=wall_s)
    return _("An endless loop, or far too slow?")


# ------------------------------------------------------------------------------------ a stopped call
def cpu_seconds(seconds: float) -> str:
    """A limit in the same digits as its basis (budgets.PerTestLimits): '0.53 s', '4.2 s', '22 s'."""
    return (_("{seconds:.2g} s") if seconds < 10 else _("{seconds:.0f} s")).format(seconds=seconds)


def with_children(basis: str, children: int, slow_import_s: float) -> str:
    """A limit's basis, and the processes the call ran, which earned it more; a slow import
    (`slow_import_s`, 0 when not slow) was allowed once for them."""
    if not children:
        return basis
    if slow_import_s:
        runs = ngettext(
            "it ran {count} more process, allowed once the {seconds} your package takes to import",
            "it ran {count} more processes, allowed once the {seconds} your package takes to import",
            children,
        )
    else:
        runs = ngettext("it ran {count} more process", "it ran {count} more processes", children)
    runs = runs.format(count=children, seconds=cpu_seconds(slow_import_s))
    return _("{basis}; {runs}").format(basis=basis, runs=runs)


def out_of_call_cpu(what: str, limit_s: float, basis: str) -> str:
    """The call used up the CPU limit of one call in its test."""
    return _(
        "{what} did not answer in time: stopped when it had used its limit of {limit} of CPU time "
        "for one call ({basis}); an endless loop, or far too slow?"
    ).format(what=what, limit=cpu_seconds(limit_s), basis=basis)


def out_of_test_cpu(what: str, limit_s: float, basis: str) -> str:
    """The call used up what was left of its test's CPU limit."""
    return _(
        "{what} did not answer in time: stopped when this test had used its limit of {limit} of CPU "
        "time ({basis}); an endless loop, or far too slow?"
    ).format(what=what, limit=cpu_seconds(limit_s), basis=basis)


def out_of_own_cpu(what: str, limit_s: float) -> str:
    """The call used up the CPU limit it was given (`bpe.kit.timeout(..., cpu=)`)."""
    return _("{what} used up its {limit:.1f} s of CPU time and was stopped").format(what=what, limit=limit_s)


def stalled(what: str, idle_s: float) -> str:
    """The call's CPU time stood still for `idle_s` seconds (grader/sandbox/process.IDLE_S)."""
    return _("{what} was stopped: {why}").format(what=what, why=stall_words(WAITING, idle_s, 0.0, still=True))


def out_of_wall(what: str, seconds: float, samples: list[tuple[float, float]]) -> str:
    """The call ran out of its `seconds` of wall-clock time; why it ran long, from its CPU samples."""
    kind = stall_kind(list(samples))
    if kind == BUSY:
        return _(
            "{what} did not answer in time: stopped after {seconds:.1f} s of wall-clock time (an "
            "endless loop, or far too slow?)"
        ).format(what=what, seconds=seconds)
    wall_s, cpu_s = samples[-1]
    text = _("{what} did not answer in time: stopped after {seconds:.1f} s of wall-clock time.").format(
        what=what, seconds=seconds
    )
    return sentences(text, stall_words(kind, wall_s, cpu_s))


def refused_then_waited(said: str, seconds: float) -> str:
    """A limit refused one of the call's processes or threads (`said`: limit_words.py), and what
    waited on it was stopped after `seconds`."""
    return sentences(
        said,
        _("What waited on it never finished, and was stopped after {seconds:.1f} s.").format(seconds=seconds),
    )


def out_of_test_wall(what: str, limit_s: float, calls: int, cpu_s: float) -> str:
    """The test's own wall-clock limit ran out during this call, after `calls` calls that used
    `cpu_s` seconds of CPU time in all."""
    return ngettext(
        "{what} did not answer in time: this test's own limit of {limit:.0f} s of wall-clock time ran "
        "out during it, after {calls} call into your code that used {cpu:.1f} s of CPU time in all.",
        "{what} did not answer in time: this test's own limit of {limit:.0f} s of wall-clock time ran "
        "out during it, after {calls} calls into your code that used {cpu:.1f} s of CPU time in all.",
        calls,
    ).format(what=what, limit=limit_s, calls=calls, cpu=cpu_s)


def other_abort(what: str, error: str) -> str:
    """Any other stop (a crash, an unreadable reply): the error's words, naming the call once."""
    return error if error.startswith(what) else _("{what}: {error}").format(what=what, error=error)


def ends_the_process(what: str | None, reason: str) -> str:
    """The call raised what no worker survives (SystemExit, KeyboardInterrupt...)."""
    return _("{what} raised {reason}, which ends the process running it").format(
        what=what or _("your code"), reason=reason
    )


def unchecked(said: str, measured: object) -> str:
    """Why the worker could not send what the code returned: a size cap's measure (wire.too_big's
    fields) in the report's language, else the worker's own words (`said`)."""
    if type(measured) is not dict:
        return said
    kind, count, mib = (measured.get(k) for k in ("kind", "count", "mib"))
    if not (type(kind) is str and type(count) is int and type(mib) is int):
        return said
    words = {
        "characters": _("a {kind} of {count} characters is larger than the {mib} MiB reply limit"),
        "items": _("a {kind} of {count} items is larger than the {mib} MiB reply limit"),
    }.get(measured.get("unit"))
    return words.format(kind=kind[:40], count=f"{count:,}", mib=mib) if words else said


def endless(what: str, bound: int) -> str:
    """An iterator from the submission yielded more items than its input could give."""
    return _(
        "{what} yielded more than {bound} items without ending "
        "(more than its input could give): is it an endless generator?"
    ).format(what=what, bound=f"{bound:,}")


def endless_stream(what: str, bound: int) -> str:
    """encode_iterable over a file yielded more ids than the file could give."""
    return _(
        "{what} yielded more than {bound} ids without ending (more than the file "
        "could give): is it an endless generator?"
    ).format(what=what, bound=f"{bound:,}")


# ------------------------------------------------------------------------------------ a raised exception
def raised(
    call: str | None, error: str, message: str, limit: str | None, child: str | None, traceback: str
) -> str:
    """The student's exception as they should read it: the call that raised it (its arguments
    summarised), type, message, or the limit it ran into; how a child process failed meanwhile;
    then where in their code."""
    said = {"call": call, "error": error, "message": message}
    if call:
        text = _("{call} raised {error}: {message}") if message else _("{call} raised {error}")
    else:
        text = _("Your code raised {error}: {message}") if message else _("Your code raised {error}")
    text = limit or text.format(**said)
    if child and child not in text:
        text += "\n" + _("(Meanwhile {failure}.)").format(failure=child)
    if traceback:
        text += "\n" + _("Raised at (your code, most recent call last):") + "\n" + traceback
    return text
