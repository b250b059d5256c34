"""Which Python a file that does not import was written for, when its error says so.

A repository written for a newer Python than the one grading it fails to import with an error that
names no version: `type X = ...` is "invalid syntax" before 3.12, `def f[T]()` "expected '('", and
`typing.Generator[int]` (type parameter defaults, 3.13) "Too few arguments". Each such error is
recognised from the data the worker sends back (grader/errors.py `ModuleDoesNotImport.data`), so
that the report names the Python the code needs instead of leaving a bare 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .i18n import N_, _


@dataclass(frozen=True)
class Needed:
    version: str  # the oldest Python that accepts the code, "3.12"
    what: str  # the feature, as a message id (translated when said)


_TYPE_STATEMENT = re.compile(r"^\s*type\s+[A-Za-z_]\w*\s*(\[[^\]]*\])?\s*=")
_TYPE_PARAMS = re.compile(r"^\s*(async\s+def|def|class)\s+[A-Za-z_]\w*\s*\[")
_TOO_FEW = re.compile(
    r"Too few arguments for (typing\.)?(Generator|AsyncGenerator|ContextManager|AsyncContextManager)\b"
)

TYPE_STATEMENT = N_("the `type` statement (PEP 695)")
TYPE_PARAMS = N_("type parameters written after a function's or a class's name (PEP 695)")
DEFAULTS = N_("a typing generic with fewer type arguments than it has (type parameter defaults, PEP 696)")


def needed(data: dict) -> Needed | None:
    """The newer Python the failure's code needs, or None when nothing in it says so."""
    error, text, message = (str(data.get(k) or "") for k in ("error", "text", "message"))
    if error == "SyntaxError" and _TYPE_STATEMENT.match(text):
        return Needed("3.12", TYPE_STATEMENT)
    if error == "SyntaxError" and _TYPE_PARAMS.match(text):
        return Needed("3.12", TYPE_PARAMS)
    if error == "TypeError" and _TOO_FEW.search(message):
        return Needed("3.13", DEFAULTS)
    return None


def hint(data: dict) -> str | None:
    """One sentence for the report, or None."""
    found = needed(data)
    if found is None:
        return None
    return _(
        "This is Python {version} code ({what}): the Python that graded it is older. Grade it "
        "with Python {version} or newer (--python PATH), and say so in the repository's "
        'requires-python (">={version}").'
    ).format(version=found.version, what=_(found.what))
