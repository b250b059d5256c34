"""The language a student reads the grade in: the report, every feedback message, their page.

Messages are gettext's: the English text in the code is the message id (`_("...")`, `ngettext`),
and the catalogue grader/locale/<locale>/LC_MESSAGES/grader.po holds the other languages (compiled
to the .mo beside it, which is what runs: the stdlib's gettext reads it, nothing else is needed to
grade). An English grade reads no catalogue at all, so its words are exactly the code's.

The language is one setting of the process (`use`), chosen by the command line (`--lang`), else by
the environment as gettext reads it (`from_environment`); the grader hands it to the graded suite's
process (grader/suite/runner.py), so the feedback written there is in the same language. `LANGUAGES`
is the kit's one list of languages and `from_environment` its one rule for reading the environment:
the labs (assignment/labs/_common.py), the handout build (assignment/build.py), the release and the
staff tools (`argument`) use them too. Messages
that quote data (ids, merges, texts, file names, code) quote it unchanged: only the words around it
are translated, through named placeholders (`_("{call} should raise {error}").format(...)`).
"""

from __future__ import annotations

import contextlib
import gettext
import os
from typing import TYPE_CHECKING

from .paths import LOCALE_DIR

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

DOMAIN = "grader"
ENGLISH = "en"
# language code (as --lang takes it) -> the catalogue's locale (None: the code's own words)
LANGUAGES = {ENGLISH: None, "zh": "zh_CN"}
# The environment variables gettext reads, in its order: LANGUAGE is a list of preferences.
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_current = ENGLISH
_loaded: dict[str, gettext.NullTranslations] = {}


def parse(value: str | None) -> str | None:
    """The language a locale name asks for ('zh_CN.UTF-8', 'zh', 'zh-Hans' -> 'zh'; 'en_GB', 'C'
    -> 'en'), or None when the kit has no catalogue for it. Every Chinese locale reads the
    Simplified catalogue: it is the only Chinese one, and better than English for a Chinese reader."""
    if not value:
        return None
    name = value.split(".")[0].split("@")[0].replace("-", "_").lower()
    if name in ("c", "posix"):
        return ENGLISH
    base = name.split("_")[0]
    return base if base in LANGUAGES else None


def argument(value: str) -> str:
    """--lang's type: a language code or a locale name ('zh', 'zh_CN.UTF-8'), as the kit's code."""
    import argparse

    lang = parse(value)
    if lang is None:
        raise argparse.ArgumentTypeError(f"no catalogue for {value!r} (languages: {', '.join(LANGUAGES)})")
    return lang


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext decides it: the first item of LANGUAGE
    the kit has, else the first of LC_ALL, LC_MESSAGES, LANG that is set; English otherwise."""
    environ = os.environ if environ is None else environ
    for item in environ.get("LANGUAGE", "").split(":"):
        if parse(item):
            return parse(item)
    for name in ENVIRONMENT[1:]:
        if environ.get(name):
            return parse(environ[name]) or ENGLISH
    return ENGLISH


def translations(lang: str) -> gettext.NullTranslations:
    """The catalogue of `lang` (English: none, the message ids are the words)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r} (one of {', '.join(LANGUAGES)})")
    if lang not in _loaded:
        locale = LANGUAGES[lang]
        _loaded[lang] = (
            gettext.translation(DOMAIN, LOCALE_DIR, languages=[locale])
            if locale
            else gettext.NullTranslations()
        )
    return _loaded[lang]


def use(lang: str) -> None:
    """Speak `lang` from now on, in this process."""
    global _current
    translations(lang)  # an unknown language or a missing catalogue fails here, not mid-report
    _current = lang


def current() -> str:
    return _current


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """`lang` inside, the language before it after."""
    before = _current
    use(lang)
    try:
        yield
    finally:
        use(before)


def _(message: str) -> str:
    """`message` (English, the message id) in the current language."""
    return translations(_current).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that agrees with `n`, in the current language."""
    return translations(_current).ngettext(singular, plural, n)


def sentences(*parts: str) -> str:
    """Whole sentences one after another: a space between them in English, none in Chinese."""
    gap = "" if _current == "zh" else " "
    return gap.join(p for p in parts if p)


def listing(items: Iterable[str]) -> str:
    """Items of a list in a sentence: '2.4, 2.5' in English, '2.4、2.5' in Chinese."""
    return ("、" if _current == "zh" else ", ").join(items)


def N_(message: str) -> str:
    """Marks a message defined before the language is known (a constant): translated where used, by `_`."""
    return message
