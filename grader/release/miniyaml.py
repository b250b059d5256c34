"""A small YAML reader, enough to check the CI templates shipped in templates/.

It reads the block style CI files use (mappings, sequences, `|`/`>` block scalars, quoted and plain
scalars, one-line flow `[...]`/`{...}`) and rejects what would make a CI service refuse the file:
tabs in indentation, inconsistent indentation, duplicate keys. It is not a general YAML parser and
says so (YamlError) on anything outside that subset rather than guessing.
"""

from __future__ import annotations

import json
import re


class YamlError(ValueError):
    pass


_INT = re.compile(r"[-+]?\d+\Z")


def _strip_comment(s: str) -> str:
    out, quote = [], None
    for i, c in enumerate(s):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or s[i - 1] in " :[{,-"):
            quote = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"):
            break
        out.append(c)
    return "".join(out).rstrip()


def _scalar(text: str, line: int):
    t = text.strip()
    if not t:
        return None
    if t[0] == '"':
        try:
            return json.loads(t)
        except ValueError:
            raise YamlError(f"line {line}: bad double-quoted string {t}") from None
    if t[0] == "'":
        if len(t) < 2 or t[-1] != "'":
            raise YamlError(f"line {line}: unterminated single-quoted string")
        return t[1:-1].replace("''", "'")
    if t[0] in "[{":
        return _flow(t, line)
    if t in ("true", "false"):
        return t == "true"
    if t in ("null", "~"):
        return None
    if _INT.match(t):
        return int(t)
    if t[0] in "&*!|>%@`":
        raise YamlError(f"line {line}: unsupported YAML construct {t[:20]!r}")
    return t


def _split_flow(body: str, line: int) -> list[str]:
    parts, depth, cur, quote = [], 0, [], None
    for c in body:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    if depth or quote:
        raise YamlError(f"line {line}: unbalanced flow collection")
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def _flow(t: str, line: int):
    if t[0] == "[":
        if t[-1] != "]":
            raise YamlError(f"line {line}: unterminated [")
        return [_scalar(p, line) for p in _split_flow(t[1:-1], line)]
    if t[-1] != "}":
        raise YamlError(f"line {line}: unterminated {{")
    out = {}
    for p in _split_flow(t[1:-1], line):
        k, sep, v = p.partition(":")
        if not sep:
            raise YamlError(f"line {line}: flow mapping entry without ':'")
        key = _scalar(k, line)
        if key in out:
            raise YamlError(f"line {line}: duplicate key {key!r}")
        out[key] = _scalar(v, line)
    return out


_KEY = re.compile(r"""^((?:"[^"]*"|'[^']*'|[^'"\s#][^:#]*?)):(?:\s+(.*))?$""")


class _Parser:
    def __init__(self, text: str):
        self.lines = []  # (indent, text, line number, raw)
        self.raw = text.splitlines()
        for n, raw in enumerate(self.raw, 1):
            body = raw.lstrip(" ")
            if body.startswith("\t") or (raw[: len(raw) - len(body)].count("\t")):
                raise YamlError(f"line {n}: tab in indentation")
            stripped = _strip_comment(body)
            if stripped and stripped != "---":
                self.lines.append((len(raw) - len(body), stripped, n))
        self.i = 0

    def parse(self):
        if not self.lines:
            return None
        value = self.block(self.lines[0][0])
        if self.i < len(self.lines):
            raise YamlError(f"line {self.lines[self.i][2]}: unexpected indentation")
        return value

    def block(self, indent: int):
        text = self.lines[self.i][1]
        return self.sequence(indent) if text == "-" or text.startswith("- ") else self.mapping(indent)

    def block_scalar(self, parent_indent: int, style: str, line: int) -> str:
        start = self.lines[self.i - 1][2]  # number of the line holding the indicator
        body, j = [], start
        while j < len(self.raw):
            raw = self.raw[j]
            if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= parent_indent:
                break
            body.append(raw)
            j += 1
        while body and not body[-1].strip():
            body.pop()
        while self.i < len(self.lines) and self.lines[self.i][2] <= start + len(body):
            self.i += 1
        if not body:
            return ""
        cut = min(len(b) - len(b.lstrip(" ")) for b in body if b.strip())
        lines = [b[cut:] for b in body]
        text = "\n".join(lines) if style.startswith("|") else " ".join(l.strip() for l in lines)
        return text if style.endswith("-") else text + "\n"

    def value_after(self, rest: str | None, indent: int, line: int):
        if rest and rest.strip() in ("|", "|-", ">", ">-"):
            return self.block_scalar(indent, rest.strip(), line)
        if rest is not None and rest.strip():
            return _scalar(rest, line)
        if self.i < len(self.lines) and (
            self.lines[self.i][0] > indent
            or (self.lines[self.i][0] == indent and self.lines[self.i][1].startswith("- "))
        ):
            return self.block(self.lines[self.i][0])
        return None

    def mapping(self, indent: int) -> dict:
        out = {}
        while self.i < len(self.lines):
            ind, text, n = self.lines[self.i]
            if ind < indent:
                break
            if ind > indent:
                raise YamlError(f"line {n}: unexpected indentation")
            if text.startswith("- "):
                break
            m = _KEY.match(text)
            if not m:
                raise YamlError(f"line {n}: expected 'key: value', found {text[:40]!r}")
            key = _scalar(m.group(1), n)
            if key in out:
                raise YamlError(f"line {n}: duplicate key {key!r}")
            self.i += 1
            out[key] = self.value_after(m.group(2), indent, n)
        return out

    def sequence(self, indent: int) -> list:
        out = []
        while self.i < len(self.lines):
            ind, text, n = self.lines[self.i]
            if ind < indent or not (text.startswith("- ") or text == "-"):
                if ind > indent:
                    raise YamlError(f"line {n}: unexpected indentation")
                break
            if ind > indent:
                raise YamlError(f"line {n}: unexpected indentation")
            item = text[2:]
            item_indent = ind + 2 + (len(item) - len(item.lstrip(" ")))
            item = item.strip()
            if not item:
                self.i += 1
                out.append(self.value_after(None, ind, n))
            elif _KEY.match(item) and not item.startswith(("[", "{")):
                # "- key: value" opens a mapping whose keys sit at the item's indentation
                self.lines[self.i] = (item_indent, item, n)
                out.append(self.mapping(item_indent))
            else:
                self.i += 1
                out.append(_scalar(item, n))
        return out


def loads(text: str):
    """The document in `text` as dicts, lists and scalars; YamlError (with a line number) if not."""
    return _Parser(text).parse()
