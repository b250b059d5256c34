"""report.html and report/students-K.html: self-contained pages (inline CSS and SVG, no external
resources), rendered from the Jinja2 templates in grader/farm/templates/ with autoescape on.

The overview (report.html) shows the stale results first (graded by another kit or submission than
today's: they may not be the grade), the score statistics, overall and per part, how often each
test fails, time per submission, the speed-gate ratios and the students the grader could not fully
grade, each linking to their feedback on a students page. The students pages hold PAGE_SIZE
students each (grader/farm/report_view.py builds what every page shows), so no page grows with the
class; their sorting and filtering is a small inline script, and they read the same without it.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment

from .. import templating
from ..atomic import write_text_atomic
from ..paths import FARM_TEMPLATES as TEMPLATES
from . import report_view


def _env() -> Environment:
    return templating.environment(TEMPLATES)


def render(
    manifest: dict,
    recs: dict[str, dict],
    out: Path,
    *,
    feedback: Path | None = None,
    page_size: int = report_view.PAGE_SIZE,
    grades: dict | None = None,
) -> dict[str, str]:
    """Every page of the report: relative path under `out` -> HTML."""
    overview, pages = report_view.build(
        manifest, recs, out, feedback=feedback, page_size=page_size, grades=grades
    )
    env = _env()
    html = {"report.html": env.get_template("report.html").render(overview)}
    students = env.get_template("students.html")
    for p in pages:
        html[f"{report_view.PAGES_DIR}/{report_view.page_name(p['number'])}"] = students.render(p)
    return html


def write(
    out: Path,
    manifest: dict,
    recs: dict[str, dict],
    *,
    feedback: Path | None = None,
    page_size: int = report_view.PAGE_SIZE,
    grades: dict | None = None,
) -> Path:
    """Write report.html and its students pages; students pages a larger class left are removed.
    `grades`: the final grades and the roster's missing students (grader/staff/cli.py: class_grades)."""
    pages = render(manifest, recs, out, feedback=feedback, page_size=page_size, grades=grades)
    for name, text in pages.items():
        if name != "report.html":
            write_text_atomic(out / name, text)
    for old in (out / report_view.PAGES_DIR).glob("students-*.html"):
        if f"{report_view.PAGES_DIR}/{old.name}" not in pages:
            old.unlink(missing_ok=True)
    path = out / "report.html"
    write_text_atomic(path, pages["report.html"])  # last: it links to the pages above
    return path
