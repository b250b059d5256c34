"""What the cs336 contract grades, and how CS336's rules differ from the kit's.

The rubric (grader/rubric_cs336.toml) changes the kit's (its `base`, grader/rubric.py reads it):
CS336's own points; its [[not_in_contract]] tests are not run, and are reported as such, never
failed, under the kit's number and names; its `notes` say where CS336's handout and its tests
disagree (the handout wins) and go with every cs336 grade.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .. import i18n
from ..charges import CAP
from ..errors import RubricError
from ..i18n import _
from ..paths import GRADER_DIR
from ..rubric import Entry, base_tests
from ..scoring import Scored
from ..terms import Status, Visibility

NAME = "cs336"
RUBRIC = GRADER_DIR / "rubric_cs336.toml"


def _data(path: Path) -> dict:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise RubricError(f"{path}: cannot read the rubric ({e})") from None


def not_in_contract(path: Path = RUBRIC) -> list[Scored]:
    """One zero-point row per kit test this contract leaves out, saying why."""
    data, rows = _data(path), []
    try:
        kit = base_tests(Path(path), data)
    except KeyError:
        raise RubricError(f"{path}: no base rubric named") from None
    for i, t in enumerate(data.get("not_in_contract", []), 1):
        try:
            test = kit[t["id"]]
            entry = Entry(
                t["id"],
                test["number"],
                test["name"],
                test["part"],
                0,
                Visibility.VISIBLE,
                test.get("name_zh"),
            )
            why = str(t.get("why_zh") if i18n.current() == "zh" and t.get("why_zh") else t["why"])
        except (KeyError, TypeError) as e:
            raise RubricError(f"{path}: [[not_in_contract]] #{i}: missing key {e}") from None
        said = _("Not part of the cs336 contract: {why}.").format(why=why)
        rows.append(Scored(entry, Status.NOT_IN_CONTRACT, 0, said, "", 0.0))
    return rows


def notes(path: Path = RUBRIC) -> list[str]:
    """The notes in the report's language (`notes_zh`, one for each note, in a Chinese one), with
    `{cap}` the most one fault costs."""
    data = _data(path)
    value, chinese = data.get("notes", []), data.get("notes_zh")
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise RubricError(f"{path}: notes must be a list of strings")
    if chinese is not None and (
        not isinstance(chinese, list)
        or len(chinese) != len(value)
        or not all(isinstance(n, str) for n in chinese)
    ):
        raise RubricError(f"{path}: notes_zh, when given, must hold one string for each note")
    said = chinese if chinese is not None and i18n.current() == "zh" else value
    return [note.format(cap=CAP) for note in said]
