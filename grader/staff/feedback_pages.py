"""One page per student, HTML (self-contained) and Markdown (for an LMS comment box), and the
`release` step that writes them all into one folder per student id.

What a page shows follows each test's visibility, as in Gradescope: `visible` always;
`after_due_date` once the last due date of anyone in the class has passed (so a student with an
extension cannot learn the hidden tests from a classmate); `after_published` once staff publish the
grades; `hidden` never by name, its points only inside the total. The total, the overrides on tests
not shown and the penalty in points appear only when nothing would reveal a test that is not shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from jinja2 import Environment

from .. import templating
from ..i18n import _
from ..paths import STAFF_TEMPLATES as TEMPLATES
from ..terms import Visibility
from .final_grades import MISSING, FinalGrade, GradeLine
from .late_policy import LatePolicy
from .overrides import TOTAL


@dataclass(frozen=True)
class Moment:
    """When a page is written: whether the due date has passed, whether grades are published."""

    after_due: bool
    published: bool

    @classmethod
    def at(cls, now: datetime, policy: LatePolicy | None, published: bool) -> Moment:
        return cls(after_due=policy is None or now >= policy.last_due() + policy.grace, published=published)

    def shows(self, t: GradeLine) -> bool:
        if t.visibility == Visibility.VISIBLE:
            return True
        if t.visibility == Visibility.AFTER_DUE_DATE:
            return self.after_due or self.published
        if t.visibility == Visibility.AFTER_PUBLISHED:
            return self.published
        return False


def _fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _env() -> Environment:
    env = templating.environment(TEMPLATES, keep_trailing_newline=True)
    env.filters["fence"] = _fence
    return env


def page_context(g: FinalGrade, moment: Moment, assignment: str) -> dict:
    shown = [t for t in g.tests if moment.shows(t)]
    withheld = [t for t in g.tests if not moment.shows(t)]
    total_shown = not withheld or moment.published
    shown_numbers = {t.number for t in shown}
    overrides = [o for o in g.overrides if o.target == TOTAL or o.target in shown_numbers or total_shown]
    return {
        "assignment": assignment,
        "g": g,
        "student": g.student,
        "missing": g.status == MISSING,
        "tests": shown,
        "withheld": len(withheld),
        "reveal_note": (
            ""
            if not withheld
            else _("Some tests are shown once grades are published.")
            if moment.after_due
            else _("Some tests are graded but shown only after the due date.")
        ),
        "visible_points": sum(t.score for t in shown),
        "visible_max": sum(t.max_score for t in shown),
        "total_shown": total_shown,
        "overrides": overrides,
        "lateness": g.lateness,
    }


def render(g: FinalGrade, moment: Moment, assignment: str) -> tuple[str, str]:
    """(HTML page, Markdown comment) for one student."""
    env, ctx = _env(), page_context(g, moment, assignment)
    return env.get_template("student.html").render(ctx), env.get_template("student.md").render(ctx)


def release(grades: list[FinalGrade], dest: Path, moment: Moment, assignment: str) -> list[Path]:
    """Write `dest/<student id>/feedback.html` and `feedback.md` for every student on the roster."""
    dest = Path(dest)
    written = []
    for g in grades:
        html, md = render(g, moment, assignment)
        d = dest / g.student.student_id
        d.mkdir(parents=True, exist_ok=True)
        (d / "feedback.html").write_text(html, encoding="utf-8")
        (d / "feedback.md").write_text(md, encoding="utf-8")
        written.append(d)
    return written
