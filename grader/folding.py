"""Failures folded by their cause, as grader/charges.py decided it: a fault is said once.

The first test (in rubric order) that a fault fails names it in full and lists the later ones; each
later test says "same cause as N" in one line, charged or not within the cap. Tests stopped at the
same unwritten function are told together (`stubs`). Every face of the grade (results.json, the
terminal table) says it in these words.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from . import i18n
from .charges import CAP
from .i18n import _
from .scoring import Scored
from .terms import Status

if TYPE_CHECKING:
    from .rubric import Entry


def output_note(output: str) -> str:
    """What the student's code printed during a test, under a line that says so."""
    return _("Output of your code during this test:") + "\n" + output


def same_cause(scored: list[Scored]) -> dict[int, Scored]:
    """{index of a failed test: the earlier test (in rubric order) that names the same cause}, as
    grader/charges.py decided it. The first test names the fault in full; each later one says
    "same cause as N" in one line."""
    by_number = {s.entry.number: s for s in scored}
    return {k: by_number.get(s.same_as) or _shown_elsewhere(s) for k, s in enumerate(scored) if s.same_as}


def _shown_elsewhere(s: Scored) -> Scored:
    """The test that names `s`'s cause when this report leaves it out (a partial grade that graded
    it only to charge the fault as a full grade does: grader/partial.py): its number, `s`'s cause."""
    return replace(s, entry=replace(s.entry, number=s.same_as), same_as=None)


def later_tests(scored: list[Scored]) -> dict[str, list[Scored]]:
    """{number of a test that names a fault: the later tests with the same cause}."""
    out: dict[str, list[Scored]] = {}
    for s in scored:
        if s.same_as:
            out.setdefault(s.same_as, []).append(s)
    return out


def same_cause_line(s: Scored, first: Scored) -> str:
    """One line for a later test that a proven fault fails (grader/charges.py sets `same_as` on no
    other): charged there, or not, within the cap."""
    summary = first.cause.get("summary") or s.cause.get("summary") or ""
    if summary[1:2].islower():  # inside the sentence: "(your pretokenize ...)", "(BPETokenizer ...)"
        summary = summary[0].lower() + summary[1:]
    said = {"number": first.entry.number, "summary": summary, "cap": CAP}
    if s.cause.get("crash"):  # the same exception at the same line of their code
        if s.status == Status.SAME_CAUSE:
            return _(
                "The same error as {number} ({summary}); not charged here: one fault costs at most {cap} points."
            ).format(**said)
        return _(
            "The same error as {number} ({summary}); charged here, up to {cap} points for this fault in all."
        ).format(**said)
    if s.cause.get("gate"):
        return _(
            "Same cause as {number} ({summary}); not charged here: this test grades only what its name says, "
            "and {number} charges this fault."
        ).format(**said)
    if s.status == Status.SAME_CAUSE:
        if summary:
            return _(
                "Same cause as {number} ({summary}); not charged here: one fault costs at most {cap} points."
            ).format(**said)
        return _("Same cause as {number}; not charged here: one fault costs at most {cap} points.").format(
            **said
        )
    if summary:
        return _(
            "Same cause as {number} ({summary}); charged here, up to {cap} points for this fault in all."
        ).format(**said)
    return _("Same cause as {number}; charged here, up to {cap} points for this fault in all.").format(**said)


def also_line(s: Scored, later: list[Scored]) -> str:
    """Under the test that names a fault: which other tests it fails, and what it costs in all."""
    said = {"numbers": i18n.listing(t.entry.number for t in later), "cap": CAP}
    if all(t.cause.get("crash") for t in later):
        return _(
            "The same error, at the same place, stops {numbers} too; it costs at most {cap} points in all."
        ).format(**said)
    return _("The same fault fails {numbers} too; it costs at most {cap} points in all.").format(**said)


def test_output(s: Scored, same_as: Scored | None, later: list[Scored]) -> str:
    if same_as is not None:
        parts = [same_cause_line(s, same_as)]
        if s.output:
            parts.append(output_note(s.output))
        return "\n\n".join(parts)
    parts = [s.feedback] if s.feedback else []
    if later:
        parts.append(also_line(s, later))
    if s.output:
        parts.append(output_note(s.output))
    return "\n\n".join(parts)


def stubs(scored: list[Scored]) -> dict[str, list[Scored]]:
    """Tests that stopped at the same unwritten function, by the feedback they share, in rubric
    order: the report says each once ("Not implemented yet: train_bpe ...: tests 2.3-2.18"). A
    test whose code printed something keeps its own block, with its output."""
    found: dict[str, list[Scored]] = {}
    for k, s in enumerate(scored):
        if s.status == Status.NOT_IMPLEMENTED and not s.output:
            found.setdefault(s.feedback, []).append(Indexed(k, s))
    return found


@dataclass(frozen=True)
class Indexed:
    """A scored test with its place in the grade (for numbering runs of tests: 2.3-2.18)."""

    index: int
    scored: Scored

    @property
    def entry(self) -> Entry:
        return self.scored.entry
