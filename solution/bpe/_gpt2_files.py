"""GPT-2's on-disk format: vocab.json and merges.txt.

vocab.json maps each token, rendered with ``bytes_to_unicode``, to its id;
merges.txt lists one merge per line as two rendered tokens separated by a
space, optionally after a "#version" line. A rendered token never contains
a real space (the space byte renders as "Ġ"), so splitting on " " is safe.
"""

import json
import os

from .gpt2_bytes import bytes_to_unicode, unicode_to_bytes

_TO_CHAR = bytes_to_unicode()
_TO_BYTE = unicode_to_bytes()


def render(token: bytes) -> str:
    return "".join(_TO_CHAR[b] for b in token)


def _unrender(text: str, path: str | os.PathLike, where: str) -> bytes:
    try:
        return bytes(_TO_BYTE[ch] for ch in text)
    except KeyError as e:
        raise ValueError(f"{os.fspath(path)}: {where}: {e.args[0]!r} is not a GPT-2 byte character") from None


def read_vocab(path: str | os.PathLike) -> dict[int, bytes]:
    """Read a GPT-2 vocab.json into ``{id: token bytes}``."""
    with open(path, encoding="utf-8") as f:
        try:
            raw = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{os.fspath(path)}: not valid JSON ({e})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{os.fspath(path)}: expected a JSON object {{token: id}}")
    vocab: dict[int, bytes] = {}
    for text, i in raw.items():
        if isinstance(i, bool) or not isinstance(i, int):
            raise ValueError(f"{os.fspath(path)}: id of {text!r} is not an integer: {i!r}")
        vocab[i] = _unrender(text, path, f"token {text!r}")
    return vocab


def read_merges(path: str | os.PathLike) -> list[tuple[bytes, bytes]]:
    """Read a GPT-2 merges.txt; skips a leading "#version" line and blank lines."""
    merges: list[tuple[bytes, bytes]] = []
    with open(path, encoding="utf-8", newline="") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line or (lineno == 1 and line.startswith("#version")):
                continue
            parts = line.split(" ")
            if len(parts) != 2 or not all(parts):
                raise ValueError(
                    f"{os.fspath(path)}: line {lineno}: expected two tokens separated by one space,"
                    f" got {line!r}"
                )
            where = f"line {lineno}"
            merges.append((_unrender(parts[0], path, where), _unrender(parts[1], path, where)))
    return merges


def write_vocab(vocab: dict[int, bytes], path: str | os.PathLike) -> None:
    data = {render(tok): i for i, tok in sorted(vocab.items())}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2)
        f.write("\n")


def write_merges(merges: list[tuple[bytes, bytes]], path: str | os.PathLike) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{render(a)} {render(b)}\n")
