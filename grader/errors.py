"""Every condition under which the grader stops, one exception each, all in one place.

They are raised where the condition is found and travel unchanged to whoever handles them, who
tells them apart with `isinstance`: a refused submission (`SubmissionError`) is the student's to fix
and is reported to them; every other `GraderError` is the course's. str() is always one line.

The tools' own refusals are here too (`LeakError`, `StarterError`, `BundleError` for a release,
`PackingError` for `bpe-kit zip`, `RosterError`, `MergeError` for the farm, `StaffFileError` for
the course staff's files): they stop a tool, never a grading.

The failures of one call into a worker (`GradingAbort` and its kinds) are not grading failures:
they cost the test that made the call, and the suite goes on (`ModuleDoesNotImport`: the test is
not graded, because a module it needs does not import). (The student's own exceptions,
rebuilt on the trusted side, are `grader.sandbox.remote_errors.RemoteError`: not the grader's.)
"""

from __future__ import annotations

from .i18n import _


class GraderError(Exception):
    """Grading could not run at all; str() is one line saying why."""


class SubmissionError(GraderError):
    """The submission itself cannot be graded (no bpe package, too big, not a readable zip...).

    The student can fix it and resubmit: the farm records it as unreadable, Gradescope shows the
    message with how to resubmit, and `make grade` prints it.
    """


class RubricError(GraderError):
    """The rubric file cannot be used (unreadable, malformed, or at odds with the graded suite), nor a
    file the handout's tables are built from with it (assignment/build.py)."""


class SuiteError(GraderError):
    """The graded suite itself could not run (broken suite, pytest failed, time budget spent)."""


class PythonError(GraderError):
    """The interpreter given with `--python` cannot be used (missing, not executable, or not the
    Python a CS336 repository's `requires-python` asks for)."""


class UnknownContract(GraderError):
    """A contract the grader does not know (grader/contracts.py)."""


class NothingSelected(GraderError):
    """`--tests PATTERN` selects none of the graded tests."""


class ReportError(GraderError):
    """The report folder cannot be created or written."""


class PackingError(Exception):
    """`bpe-kit zip` cannot pack the submission; str() is one line naming the folder and the problem."""


class LeakError(RuntimeError):
    """The handout would contain something hidden; nothing was written."""


class StarterError(RuntimeError):
    """The handout's starter would ship something other than its committed stubs; nothing was written."""


class BundleError(RuntimeError):
    """The kit cannot make a working Gradescope bundle; nothing was written."""


class TranslationError(RuntimeError):
    """A translated handout's student file is out of step with its English one; nothing was written."""


class RosterError(ValueError):
    """The farm's submissions folder or a shard spec cannot be used as given."""


class MergeError(ValueError):
    """A farm output cannot be merged (not a farm output, or the shards disagree)."""


class GradingAbort(BaseException):
    """The call could not finish (timeout, crash, unreadable reply). A BaseException on purpose:
    `pytest.raises(Exception)` in a graded test must never swallow it."""

    child_failure: str | None = None  # how a child process the call started failed, if one did


class CallTimeout(GradingAbort):
    """The call did not answer within its wall-clock deadline."""


class CpuLimitExceeded(CallTimeout):
    """The call used up its CPU-time cap (see `WorkerProcess.cpu_cap`) before it answered."""


class CallStalled(CallTimeout):
    """The call's CPU time stood still, nothing of it runnable, for `idle_s` seconds: it waits on
    something that will not come (a child killed, a lock never released), so its wall-clock limit
    need not be waited out."""

    idle_s: float = 0.0


class WorkerCrashed(GradingAbort):
    """The worker process ended while a call was pending."""


class BadReply(GradingAbort):
    """The worker answered with something that is not a valid message."""


class ModuleDoesNotImport(GradingAbort):
    """A name the test needs is in a module of the submission that does not import (see
    grader/sandbox/importing.py): the test is not graded. Carries where, as data: `file` (as
    "bpe/tokenizer.py"), `line` (or None), `error` (the exception's type), `message`, `text` (the
    line's source)."""

    def __init__(self, file: str, line: int | None, error: str, message: str, text: str = "") -> None:
        self.file, self.line, self.error, self.message, self.text = file, line, error, message, text
        super().__init__(str(self))

    def __str__(self) -> str:
        return does_not_import(self.data())

    def verdict(self) -> str:
        """What a test that needs the module reads: 'not graded: bpe/tokenizer.py does not import (line 231)'."""
        if self.line:
            return _("not graded: {file} does not import (line {line})").format(
                file=self.file, line=self.line
            )
        return _("not graded: {file} does not import").format(file=self.file)

    def data(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "error": self.error,
            "message": self.message,
            "text": self.text,
        }


def does_not_import(data: dict) -> str:
    """'bpe/tokenizer.py does not import: SyntaxError at line 3: ...', from `ModuleDoesNotImport.data`."""
    if data.get("line"):
        return _("{file} does not import: {error} at line {line}: {message}").format(**data)
    return _("{file} does not import: {error}: {message}").format(**data)


class ImportTooSlow(ModuleDoesNotImport):
    """Importing the submission used up the import's own CPU limit (session.Session.import_cpu_limit):
    no test is graded, and the report says so once. Never charged to a test as that test's slowness."""

    def __init__(self, limit: str) -> None:
        self.limit = limit
        super().__init__(
            "bpe",
            None,
            _("too slow"),
            _(
                "importing your bpe package used more than {limit} of CPU time, the import's own limit "
                "(the top-level code of your modules and of what they import counts; is there an endless "
                "loop or a long computation outside any function?)"
            ).format(limit=limit),
        )

    def verdict(self) -> str:
        return _("not graded: your bpe package did not import within {limit} of CPU time").format(
            limit=self.limit
        )


class ImportFailed(ModuleDoesNotImport):
    """Importing the submission was stopped for another reason than its CPU limit: it waited (its
    wall-clock backstop, or CPU time standing still), or its process crashed. Remembered like
    ImportTooSlow: a second import would only wait as long again, so no test is graded, and the
    report says why once, in the words that stopped it (`words`)."""

    def __init__(self, words: str) -> None:
        self.words = words
        super().__init__("bpe", None, _("did not finish"), words)

    def verdict(self) -> str:
        return _("not graded: {why}").format(why=self.words.split("\n")[0])


class StaffFileError(ValueError):
    """A file the course staff wrote (roster, late policy, overrides, LMS metadata) cannot be used as
    given; the message names the file and what is wrong, for one line on stderr."""
