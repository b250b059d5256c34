"""The handout's student files (README.md, Makefile) in another language than English.

The README has a twin written in that language, `student_README.<lang>.md`. The Makefile is made
from the English one, so both run the same recipes: `student.Makefile.<lang>.toml` gives its
comments and printed lines in that language (each English line, whole, beside its translation) and
a prelude to put on top. An English line the Makefile no longer holds stops the build: the English
changed, and its translation must follow.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ..errors import TranslationError


def translated_makefile(english: str, translation: Path, lang: str) -> str:
    """`english` (a Makefile's text) with the lines of `translation` replaced and its prelude on top."""
    try:
        spec = tomllib.loads(translation.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise TranslationError(f"{translation}: {error}") from None
    lines = english.split("\n")
    for i, pair in enumerate(spec.get("line", []), start=1):
        en, translated = pair.get("en"), pair.get(lang)
        if not isinstance(en, str) or not isinstance(translated, str):
            raise TranslationError(f"{translation}: [[line]] number {i} needs en and {lang} (strings)")
        if lines.count(en) != 1:
            raise TranslationError(
                f"{translation}: [[line]] number {i} is not a line of the English Makefile "
                f"(found {lines.count(en)} times); translate the English line as it is now"
            )
        lines[lines.index(en)] = translated
    return spec.get("prelude", "").lstrip("\n") + "\n".join(lines)


def student_files(templates: Path, english: dict[str, bytes], lang: str) -> dict[str, bytes]:
    """The student files in `lang`, from the English ones (name in the handout -> content)."""
    if lang == "en":
        return english
    makefile = translated_makefile(
        english["Makefile"].decode("utf-8"), templates / f"student.Makefile.{lang}.toml", lang
    )
    try:
        readme = (templates / f"student_README.{lang}.md").read_bytes()
    except OSError as error:
        raise TranslationError(f"{error.filename}: {error.strerror}") from None
    return english | {"Makefile": makefile.encode("utf-8"), "README.md": readme}
