"""The words of a broken round trip (encode, then decode, does not give the text back)."""

from __future__ import annotations

from grader.i18n import _


def broken(text: str, ids: list[int], back: str) -> str:
    return _(
        "the smallest text that breaks your round trip: {text}\n  encode gave {ids}\n  decode gave back {back}"
    ).format(text=repr(text), ids=ids, back=repr(back))
