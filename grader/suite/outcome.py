"""How one graded test ended, in a student's words: status, feedback, their program's output.

Statuses (grader/terms.py `Status`): passed, failed, not implemented (the code raised
NotImplementedError: the stub is still there), not graded (a module the test needs does not
import), skipped. Feedback never includes the graded test's source (hidden tests stay hidden): only
the assertion message, or the student's exception with their own frames.
"""

from __future__ import annotations

import re

import pytest

from ..errors import GradingAbort, ModuleDoesNotImport
from ..i18n import _
from ..sandbox.process import OUTPUT_CAP
from ..sandbox.remote_errors import RemoteError
from ..terms import Cause, Status

FEEDBACK_CAP = 8000


def classify(excinfo: pytest.ExceptionInfo[BaseException]) -> tuple[str, str]:
    exc = excinfo.value
    if isinstance(exc, NotImplementedError):
        # A stub still in place: its own message says which function; a traceback would be noise.
        return Status.NOT_IMPLEMENTED, _("Not implemented yet: {what}").format(
            what=str(exc) or _("a function this test calls")
        )
    if isinstance(exc, ModuleDoesNotImport):
        # Said once for the whole grade, in the report's banner; each test only names the cause.
        return Status.NOT_GRADED, exc.verdict()
    status, text = _classify(exc, excinfo)
    example = failing_example(exc)
    if example:
        text += "\n" + _("The input that caused it (the smallest that hypothesis found):") + "\n" + example
    return status, text


# Hypothesis adds the shrunk input to the exception as a note (PEP 678): "Falsifying example:
# test_x(text='a')" in older versions, "Failing test case: test_x(\n    text='a',\n)" in newer ones.
_EXAMPLE_NOTE = re.compile(r"\A(?:Falsifying example|Failing test case): \w+\((.*)\)\s*\Z", re.S)


def failing_example(exc: BaseException) -> str | None:
    """The arguments of the example hypothesis shrank a property-test failure to, one per line
    (the test's name is left out: hidden tests stay unnamed); None outside a property test."""
    for note in getattr(exc, "__notes__", None) or []:
        m = _EXAMPLE_NOTE.match(str(note))
        if m:
            args = [line.strip().rstrip(",") for line in m.group(1).splitlines()]
            return "\n".join("    " + a for a in args if a) or None
    return None


def _classify(exc: BaseException, excinfo: pytest.ExceptionInfo[BaseException]) -> tuple[str, str]:
    remote = _remote_text(exc)
    if remote is not None:
        return Status.FAILED, remote
    if isinstance(exc, GradingAbort):
        return Status.FAILED, str(exc)
    if isinstance(exc, AssertionError):
        return Status.FAILED, str(exc) or _("a check failed")
    if isinstance(exc, pytest.fail.Exception):
        return Status.FAILED, str(exc)
    # Not exconly(): that adds hypothesis's notes, which name the graded test and its file.
    return Status.FAILED, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _remote_text(exc: BaseException) -> str | None:
    if isinstance(exc, RemoteError):
        return exc.feedback()
    return None


def record(
    item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None], output: str
) -> dict | None:
    """One record per test phase worth reporting (see plugin.pytest_runtest_makereport)."""
    when = call.when
    if report.passed and when != "call":
        return None
    if report.skipped:
        status, feedback = Status.SKIPPED, str(getattr(call.excinfo, "value", "")) if call.excinfo else ""
    elif report.passed:
        status, feedback = Status.PASSED, ""
    elif call.excinfo is not None:
        status, feedback = classify(call.excinfo)
        if when == "teardown":
            status, feedback = Status.FAILED, _("after the test: {feedback}").format(feedback=feedback)
    else:
        status, feedback = Status.FAILED, str(report.longrepr)
    # Graded tests may add a note for the student (`record_property("feedback", text)`), shown
    # whether the test passes or not (e.g. how a speed measurement compares with its budget).
    # Said once, though a test that grades its input twice (grader/checks/appended.py) records it twice.
    notes = list(
        dict.fromkeys(str(v) for k, v in report.user_properties if k == "feedback" and str(v) not in feedback)
    )
    if notes:
        feedback = "\n".join([feedback, *notes]).strip("\n") if feedback else "\n".join(notes)
    # A diagnosed cause travels as data on the failure (grader/checks/diagnose.py: `Diagnosed.cause`),
    # so that the report names one fault once across the tests it fails.
    cause = cause_of(call.excinfo.value) if call.excinfo is not None else None
    # Measured figures travel as data (grader/checks/speed.py): `record_property("figures", {...})`.
    figures = {}
    for k, v in report.user_properties:
        if k == "figures" and isinstance(v, dict):
            figures = dict(v)
    rec = {
        "nodeid": item.nodeid,
        "status": status,
        "figures": figures,
        "cause": _cause(item, cause) if isinstance(cause, dict) and status == Status.FAILED else {},
        "feedback": _normal(item, feedback),
        "output": _normal(item, output, cap=OUTPUT_CAP + 200),
        "duration": report.duration,
    }
    if status == Status.NOT_GRADED:  # the report's banner: what the worker said, made safe like feedback
        data = call.excinfo.value.data()
        rec["not_imported"] = {
            k: _normal(item, v, cap=300) if isinstance(v, str) else v for k, v in data.items()
        }
    return rec


def _cause(item: pytest.Item, cause: Cause) -> Cause:
    """The cause as a report holds it: its summary (which may quote the student) made safe."""
    out = dict(cause)
    if isinstance(out.get("summary"), str):
        out["summary"] = _normal(item, out["summary"], cap=200)
    return out


def cause_of(exc: BaseException) -> Cause | None:
    """The fault a failure is known to come from, as data: a diagnosed one (`Diagnosed.cause`), or
    the student's exception, keyed by its type and the line of their code that raised it. The same
    exception raised at the same line is one fault by construction (`one_fault`): it costs at most
    the cap, whatever the number of tests it stops (grader/charges.py)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, dict):
        return cause
    where = getattr(exc, "where", None)
    if not isinstance(exc, RemoteError) or not where:
        return None
    path, line = where
    message = " ".join(str(exc).split())
    return {
        "key": f"raised {exc.remote_type} at {path}:{line}",
        "where": f"{path}:{line}",
        "crash": True,
        "one_fault": True,
        "summary": (
            _("your code raised {error} at {where}: {message:.80}")
            if message
            else _("your code raised {error} at {where}")
        ).format(error=exc.remote_type, where=f"{path}:{line}", message=message),
    }


_TEMP_DIRS = re.compile(r"/tmp/bpe-kit-[A-Za-z0-9_]+|/tmp/pytest-of-[^/\s]+/pytest-\d+")
# Characters that XML cannot hold (junit.xml), printed by a student's code (colour codes, NUL...).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _normal(item: pytest.Item, text: str, cap: int = FEEDBACK_CAP) -> str:
    """Feedback a report can always hold, the same on every run of the same submission.

    Random temp names are replaced; lone surrogates (which a student's message may carry and UTF-8
    cannot encode) are escaped; control characters become U+FFFD.
    """
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = _CONTROL.sub("\ufffd", text)
    text = _TEMP_DIRS.sub(lambda m: "/tmp/bpe-kit" if "bpe-kit" in m.group() else "<tmp>", text)
    if len(text) > cap:
        text = text[:cap] + "\n" + _("[... {count} more characters]").format(count=len(text) - cap)
    return text


def merge(records: list[dict]) -> list[dict]:
    """One record per test: the first non-pass wins; durations add up."""
    merged: dict[str, dict] = {}
    for rec in records:
        seen = merged.get(rec["nodeid"])
        if seen is None:
            merged[rec["nodeid"]] = dict(rec)
            continue
        seen["duration"] += rec["duration"]
        seen["figures"] = seen.get("figures") or rec.get("figures") or {}
        if seen["status"] == Status.PASSED and rec["status"] != Status.PASSED:
            seen.update(status=rec["status"], feedback=rec["feedback"], cause=rec.get("cause") or {})
            if "not_imported" in rec:
                seen["not_imported"] = rec["not_imported"]
        if (rec.get("import") or {}).get("cpu_s", 0) > (seen.get("import") or {}).get("cpu_s", 0):
            seen["import"] = rec["import"]
        if rec["output"] and rec["output"] not in seen["output"]:
            seen["output"] += rec["output"]
    return list(merged.values())
