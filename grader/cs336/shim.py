"""The kit's `bpe` API on top of a CS336 repository's `tests/adapters.py` (runs in the sandbox).

Copied into the sandbox as `bpe/__init__.py`, with the student's repository beside it as
`bpe/_repo/` (and its project's dist-info, so `importlib.metadata` finds it uninstalled). Stdlib
only. The repository root goes on sys.path for good (not just for the import),
so pool children made by spawn or forkserver, which copy the parent's sys.path, import
`cs336_basics` too; PYTHONPATH carries it to any other child interpreter.

The shim adapts the kit's calls to CS336's and never judges: the graded tests on the trusted side do.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable, Iterator

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_repo")
if REPO not in sys.path:
    sys.path.insert(0, REPO)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p)

adapters = importlib.import_module("tests.adapters")


def train_bpe(
    input_path: str | os.PathLike[str], vocab_size: int, special_tokens: list[str] | None
) -> object:
    """Every argument as the test gives it: `[]` stays `[]` (a list of no special tokens)."""
    return adapters.run_train_bpe(input_path=input_path, vocab_size=vocab_size, special_tokens=special_tokens)


class BPETokenizer:
    """`get_tokenizer(vocab, merges, special_tokens)` behind the kit's tokenizer methods.

    The vocab goes in as given: appending the special tokens it lacks is the tokenizer's job, as
    CS336's handout says. CS336 leaves the appended ids open, so each appended token's id (what
    `encode` gives for the token alone, or the new id that `decode` turns into it) is shown as the
    kit's id for it, the next free one: encode's ids are translated, and decode's back. A token
    that does not come back as one new id is left as it is, for the tests to see."""

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None = None,
    ) -> None:
        # As the test gives them: `[]` stays `[]` and None stays None (CS336's handout allows both).
        self._tok = adapters.get_tokenizer(dict(vocab), list(merges), special_tokens)
        self._out = _appended_ids(self._tok, vocab, list(dict.fromkeys(special_tokens or [])))
        self._in = {kit: theirs for theirs, kit in self._out.items()}

    def encode(self, text: str) -> object:
        ids = self._tok.encode(text)
        return [_mapped(self._out, i) for i in ids] if self._out else ids

    def decode(self, ids: list[int]) -> object:
        return self._tok.decode([_mapped(self._in, i) for i in ids] if self._in else ids)

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[object]:
        for i in self._tok.encode_iterable(iterable):
            yield _mapped(self._out, i)


def _mapped(ids: dict[int, int], i: object):
    """An id as the other side numbers it; anything else (a list where an id should be) as it is,
    for the tests to name."""
    return ids.get(i, i) if type(i) is int else i


def _appended_ids(tok: object, vocab: dict[int, bytes], specials: list[str]):
    """{the tokenizer's id: the kit's id} for the special tokens it appended, as a permutation of
    both sets of ids (so no two ids ever read the same); {} when they already agree. A token's id
    is what encode gives for it alone, or else the new id that decode turns into it (a tokenizer
    whose encode does not keep special tokens whole still appended them: the encoding tests say
    what encode does)."""
    known = set(vocab.values())
    free = max(vocab, default=-1) + 1
    missing = [token for token in specials if token.encode("utf-8") not in known]
    out = {}
    for kit, token in enumerate(missing, free):
        try:
            ids = list(tok.encode(token))
        except Exception:  # the tests call encode again and report what it raises
            ids = []
        if len(ids) != 1 or type(ids[0]) is not int or ids[0] in vocab or ids[0] in out:
            ids = [
                i
                for i in range(free, free + len(specials) + 1)
                if i not in out and _decodes_to(tok, i, token)
            ]
        if ids:
            out[ids[0]] = kit
    spare_sources = sorted(set(out.values()) - set(out))
    spare_targets = sorted(set(out) - set(out.values()))
    out.update(zip(spare_sources, spare_targets))
    return {theirs: kit for theirs, kit in out.items() if theirs != kit}


def _decodes_to(tok: object, i: int, token: str):
    try:
        return tok.decode([i]) == token
    except Exception:
        return False
