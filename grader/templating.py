"""The one Jinja2 set-up of the kit's pages (the farm's class report, the staff's student pages): autoescape (a submission's
output is hostile text), StrictUndefined (a missing field fails the build instead of printing
nothing), the filters the templates share, and the i18n extension: `{% trans %}` and `_()` speak
the process's language (grader/i18n.py; the students' pages are translated, the class report is not)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from . import i18n


def _num(x: float | None) -> str:
    """2 decimals at most, no trailing zeros; blank for a figure that was not measured."""
    return "" if x is None else f"{round(x, 2):g}"


def environment(folder: Path, *, keep_trailing_newline: bool = False) -> Environment:
    env = Environment(
        loader=FileSystemLoader(folder),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=keep_trailing_newline,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(i18n.translations(i18n.current()), newstyle=True)
    env.globals["lang"] = i18n.current()
    env.filters["num"] = _num
    return env
