"""Text as a terminal shows it: a CJK character takes two columns, a combining mark none.

The report fits 80 columns in every language. `textwrap` counts characters and breaks only at
spaces; Chinese has no spaces and its characters are two columns wide. `Wrapper` is textwrap's own
algorithm measured in columns, with a break allowed between any two wide characters (never before
closing punctuation such as '，' or '）', never after an opening one such as '（'). On text without
wide characters it wraps exactly as textwrap does.
"""

from __future__ import annotations

import textwrap
import unicodedata

# Punctuation that may not start a line (closing) or end one (opening): kept with its neighbour.
NO_LINE_START = set("，。、；：！？）」』》〉】”’…%,.;:!?)]}")
NO_LINE_END = set("（「『《〈【“‘([{")


def char_width(c: str) -> int:
    if unicodedata.combining(c) or c in "\u200b\u200c\u200d":
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def width(text: str) -> int:
    """Columns `text` takes in a terminal."""
    if text.isascii():
        return len(text)
    return sum(char_width(c) for c in text)


def ljust(text: str, columns: int) -> str:
    """`text` padded with spaces to `columns` columns (as format's `<` does, by columns)."""
    return text + " " * max(0, columns - width(text))


def rjust(text: str, columns: int) -> str:
    return " " * max(0, columns - width(text)) + text


def _wide(c: str) -> bool:
    return char_width(c) == 2


class Wrapper(textwrap.TextWrapper):
    """textwrap.TextWrapper, measured in columns, breaking between wide characters too."""

    def _split(self, text: str):
        chunks = super()._split(text)
        if text.isascii():
            return chunks
        out: list[str] = []
        for chunk in chunks:
            out += _cjk_pieces(chunk)
        return out

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width_: int):
        space_left = 1 if width_ < 1 else width_ - cur_len
        if self.break_long_words:
            chunk = reversed_chunks[-1]
            taken, used = 0, 0
            for c in chunk:
                if used + char_width(c) > space_left and (taken or cur_line):
                    break
                used += char_width(c)
                taken += 1
            cur_line.append(chunk[:taken])
            reversed_chunks[-1] = chunk[taken:]
        elif not cur_line:
            cur_line.append(reversed_chunks.pop())

    def _wrap_chunks(self, chunks: list[str]):
        """textwrap's own loop (CPython 3.11), with len() replaced by `width`."""
        lines = []
        if self.width <= 0:
            raise ValueError(f"invalid width {self.width!r} (must be > 0)")
        chunks.reverse()
        while chunks:
            cur_line: list[str] = []
            cur_len = 0
            indent = self.subsequent_indent if lines else self.initial_indent
            width_ = self.width - width(indent)
            if self.drop_whitespace and chunks[-1].strip() == "" and lines:
                del chunks[-1]
            while chunks:
                n = width(chunks[-1])
                if cur_len + n <= width_:
                    cur_line.append(chunks.pop())
                    cur_len += n
                else:
                    break
            if chunks and width(chunks[-1]) > width_:
                self._handle_long_word(chunks, cur_line, cur_len, width_)
                cur_len = sum(map(width, cur_line))
            if self.drop_whitespace and cur_line and cur_line[-1].strip() == "":
                cur_len -= width(cur_line[-1])
                del cur_line[-1]
            if cur_line:
                lines.append(indent + "".join(cur_line))
        return lines


def _cjk_pieces(chunk: str) -> list[str]:
    """A chunk cut before and after every wide character, punctuation kept with its neighbour."""
    if not any(_wide(c) for c in chunk):
        return [chunk]
    pieces: list[str] = []
    run = ""
    for c in chunk:
        if _wide(c):
            if run:
                pieces.append(run)
            run = ""
            pieces.append(c)
        else:
            run += c
    if run:
        pieces.append(run)
    out: list[str] = []
    for piece in pieces:
        if out and (piece[0] in NO_LINE_START or out[-1][-1] in NO_LINE_END):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def wrap(text: str, columns: int, **options) -> list[str]:
    """textwrap.wrap by columns (see `Wrapper`); the same options."""
    return Wrapper(columns, **options).wrap(text)
