"""Many texts encoded in few calls, so that no correctness test fails a correct but slow encoder.

Each call crosses the sandbox, and a correct encoder may take long per call (one that starts a
process pool on every call): that is E.2's charge alone, never a correctness test's. So texts go to
`encode` joined, each followed by a special token, whenever that token cuts the joined text cleanly
(it joins none of the texts' own special tokens into a longer one): a special token is a hard
boundary, so a right encode gives each text's ids, then the special token's. The shortest texts
are always encoded alone (where a text starts and ends is theirs to show), and so is every text of
a group whose joined call goes wrong, so a failure is named on the smallest text, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from grader.bpe_facts.pieces import reference_split

ALONE = 32  # the shortest texts, each in a call of its own
GROUP_CHARS = 4000  # a joined call holds about this many characters of text...
GROUP_TEXTS = 64  # ...and at most this many texts


def cuts_cleanly(text: str, sep: str, specials: list[str]) -> bool:
    """Does `sep` after `text`, and before it, leave `text`'s own pieces as they are?"""
    alone = reference_split(text, specials)
    return reference_split(text + sep + text, specials) == [*alone, sep, *alone]


def groups(texts: list[str], specials: list[str]) -> list[list[str]]:
    """`texts` in order, cut into groups: one text alone, or several that the first special token
    joins cleanly (checked on the joined text too)."""
    sep = specials[0] if specials else None
    out: list[list[str]] = []
    group: list[str] = []

    def close() -> None:
        if group:
            joined = "".join(t + sep for t in group)
            pieces = [p for t in group for p in (*reference_split(t, specials), sep)]
            out.extend([list(group)] if reference_split(joined, specials) == pieces else [[t] for t in group])
            group.clear()

    for k, text in enumerate(texts):
        if sep is None or k < ALONE or not text or not cuts_cleanly(text, sep, specials):
            close()
            out.append([text])
            continue
        group.append(text)
        if len(group) >= GROUP_TEXTS or sum(map(len, group)) >= GROUP_CHARS:
            close()
    close()
    return out


def encoded_apart(
    pairs: list[tuple[str, list[int]]], specials: list[str], sep_id: int | None, encode: Callable
) -> Iterator[tuple[str, list[int], list[int]]]:
    """(text, expected ids, `encode(text)`) for each text that must be judged on its own: every text
    of a group whose joined call does not give the expected ids (or raises), and every text alone.
    A group whose joined call is right is right on each of its texts: none of them is yielded."""
    expected: dict[str, list[int]] = {}
    for text, ids in pairs:
        expected.setdefault(text, list(ids))
    sep = specials[0] if specials else None
    for group in (
        groups([t for t, _ids in pairs], specials) if sep_id is not None else [[t] for t, _ in pairs]
    ):
        if len(group) > 1:
            want = [i for t in group for i in (*expected[t], sep_id)]
            try:
                if encode("".join(t + sep for t in group)) == want:
                    continue
            except Exception:  # its own error shows again on the texts one by one
                pass
        for text in group:
            yield text, expected[text], encode(text)
