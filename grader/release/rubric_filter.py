"""The visible part of grader/rubric.toml, keeping its comments and layout.

There is no TOML writer in the standard library, so the text is cut into `[[test]]` blocks and the
blocks whose visibility is not "visible" are dropped. Their points are kept as a number,
`withheld_points`, so the student's grader can say how many points only Gradescope grades. The result is parsed again and checked against
the original so a layout the cutter does not understand fails loudly instead of leaking.
"""

from __future__ import annotations

import re
import tomllib

from ..errors import RubricError
from ..terms import Visibility

WITHHELD = "withheld_points"


def _blocks(text: str) -> tuple[str, list[str]]:
    starts = [m.start() for m in re.finditer(r"(?m)^\[\[test\]\][ \t]*$", text)]
    if not starts:
        return text, []
    head = text[: starts[0]]
    return head, [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def visible_only(text: str) -> str:
    try:
        full = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RubricError(f"grader/rubric.toml: {e}") from None
    if WITHHELD in full:
        raise RubricError(f"grader/rubric.toml: {WITHHELD} is written by the handout build, not by hand")
    head, blocks = _blocks(text)
    kept, withheld = [], 0
    for block in blocks:
        entry = tomllib.loads(block)["test"][0]
        if entry.get("visibility", Visibility.VISIBLE) == Visibility.VISIBLE:
            kept.append(block)
        else:
            withheld += entry.get("points", 0)
    want = [t for t in full.get("test", []) if t.get("visibility", Visibility.VISIBLE) == Visibility.VISIBLE]
    if "total" in full:  # the declared total becomes the visible tests' own
        points = sum(t["points"] for t in want)
        head = re.sub(
            r"(?m)^total\s*=.*$",
            f"total = {int(points) if float(points).is_integer() else points}  # the visible tests' points",
            head,
        )
    note = f"# Points of the tests left out here, graded on Gradescope only.\n{WITHHELD} = {withheld}\n\n"
    result = head.rstrip("\n") + "\n\n" + note + "".join(kept)
    got = tomllib.loads(result)
    if (
        got.pop(WITHHELD, None) != withheld
        or got.get("test", []) != want
        or {k: v for k, v in got.items() if k not in ("test", "total")}
        != {k: v for k, v in full.items() if k not in ("test", "total")}
    ):
        raise RubricError(
            "grader/rubric.toml: could not separate its [[test]] tables cleanly; "
            "keep each [[test]] table contiguous, with no other tables after them"
        )
    return result
