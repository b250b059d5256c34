"""Part 3: a byte-level BPE tokenizer that encodes and decodes text.

Encoding a pre-token merges, at each step, the adjacent pair whose merge was
learned earliest (lowest rank), every occurrence of it, left to right. This
gives exactly the result of replaying all merges in training order, but only
looks at pairs that actually occur. Natural text repeats the same words over
and over, so results are cached per pre-token: most pre-tokens of a long
text are a dict lookup.

After the class: GPT-2's file format (``from_files`` and ``save``), and how
``encode_iterable`` decides which text of a stream can no longer change.
"""

import json
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from itertools import chain, pairwise

import regex

from .gpt2_bytes import bytes_to_unicode, unicode_to_bytes
from .pretokenize import _compile_specials, _split_with, pretokenize

_CACHE_SIZE = 1 << 16  # pre-tokens; bounds memory on endless streams
_CACHE_MAX_LEN = 64  # characters; longer pre-tokens (runs of spaces, URLs, ...) are rare: not cached
_NO_MERGE = 1 << 62  # a rank above every real one: "this pair never merges"


def _merge_by_rank(
    ids: list[int], pair_rank: dict[tuple[int, int], int], merged_id: dict[int, int]
) -> list[int]:
    """BPE of one pre-token's byte ids: merge the lowest-ranked pair until no pair has a rank.

    Each step looks up the rank of every adjacent pair, takes the lowest, and
    rebuilds the list with every occurrence of that pair merged, left to
    right (so "a a a" with the merge (a, a) gives "aa a"). A step costs time
    linear in the pre-token, and a pre-token takes at most one step per
    merge it uses.
    """
    get = pair_rank.get
    while len(ids) > 1:
        ranks = [get(pair, _NO_MERGE) for pair in pairwise(ids)]
        best = min(ranks)
        if best == _NO_MERGE:
            break
        new_id = merged_id[best]
        out: list[int] = []
        i, last = 0, len(ranks)
        while i <= last:
            if i < last and ranks[i] == best:  # ids[i], ids[i + 1] is the pair to merge
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


class _PretokenCache(dict):
    """pre-token -> ids; computes on a miss and forgets the oldest entry when full."""

    def __init__(self, compute: Callable[[str], list[int]]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, pretoken: str) -> list[int]:
        ids = self._compute(pretoken)
        if len(pretoken) > _CACHE_MAX_LEN:
            return ids  # rare, and could be huge: not worth keeping
        if len(self) >= _CACHE_SIZE:
            del self[next(iter(self))]  # dicts keep insertion order: this is the oldest
        self[pretoken] = ids
        return ids


class BPETokenizer:
    """Encode text to token ids and back, given a vocabulary and ordered merges."""

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None = None,
    ) -> None:
        self.vocab: dict[int, bytes] = dict(vocab)
        self.merges: list[tuple[bytes, bytes]] = [(bytes(a), bytes(b)) for a, b in merges]
        if isinstance(special_tokens, str):
            raise TypeError("special_tokens must be a list of str, not a single str")
        self.special_tokens: list[str] = list(dict.fromkeys(special_tokens or []))
        if "" in self.special_tokens:
            raise ValueError("a special token cannot be the empty string")

        self._id_of: dict[bytes, int] = {}
        for i, tok in sorted(self.vocab.items()):
            self._id_of.setdefault(tok, i)  # on duplicates the smallest id wins
        self._special_ids: dict[str, int] = {}
        for tok in self.special_tokens:
            raw = tok.encode("utf-8")
            if raw not in self._id_of:
                new_id = max(self.vocab, default=-1) + 1
                self.vocab[new_id] = raw
                self._id_of[raw] = new_id
            self._special_ids[tok] = self._id_of[raw]
        self._special_re = _compile_specials(self.special_tokens)
        self._max_special_len = max((len(t) for t in self.special_tokens), default=0)

        self._byte_ids = [self._id_of.get(bytes([b])) for b in range(256)]
        # (left id, right id) -> rank, and rank -> merged id; the first occurrence of a merge wins.
        self._pair_rank: dict[tuple[int, int], int] = {}
        self._merged_id: dict[int, int] = {}
        for rank, (a, b) in enumerate(self.merges):
            try:
                key = (self._id_of[a], self._id_of[b])
                merged = self._id_of[a + b]
            except KeyError as e:
                raise ValueError(
                    f"merge {rank} ({a!r}, {b!r}) uses or makes a token missing from the vocab: {e.args[0]!r}"
                ) from None
            if key not in self._pair_rank:
                self._pair_rank[key] = rank
                self._merged_id[rank] = merged
        self._cache = _PretokenCache(self._bpe)

    # -- files ---------------------------------------------------------------

    @classmethod
    def from_files(
        cls,
        vocab_filepath: str | os.PathLike,
        merges_filepath: str | os.PathLike,
        special_tokens: list[str] | None = None,
    ) -> "BPETokenizer":
        """Load GPT-2-format ``vocab.json`` and ``merges.txt`` (the format is described below the class)."""
        vocab = _read_vocab(vocab_filepath)
        merges = _read_merges(merges_filepath)
        return cls(vocab, merges, special_tokens)

    def save(self, vocab_filepath: str | os.PathLike, merges_filepath: str | os.PathLike) -> None:
        """Write GPT-2-format files that ``from_files`` (and HF tokenizers) can load."""
        _write_vocab(self.vocab, vocab_filepath)
        _write_merges(self.merges, merges_filepath)

    # -- encoding ------------------------------------------------------------

    def _bpe(self, pretoken: str) -> list[int]:
        """The ids of one pre-token: what merging its bytes, lowest-ranked pair first, gives."""
        raw = pretoken.encode("utf-8")
        ids = [self._byte_ids[b] for b in raw]
        if None in ids:
            missing = next(b for b in raw if self._byte_ids[b] is None)
            raise ValueError(f"byte {missing:#04x} has no token in the vocabulary")
        return _merge_by_rank(ids, self._pair_rank, self._merged_id)

    def _encode_pretokens(self, pretokens: list[str]) -> Iterator[int]:
        # Cache hits, the common case, stay inside C: dict lookups via map,
        # concatenation via chain. Misses go through _PretokenCache.__missing__.
        return chain.from_iterable(map(self._cache.__getitem__, pretokens))

    def encode(self, text: str) -> list[int]:
        """Encode ``text``: special tokens become their single id, the rest is BPE-merged.

        >>> # tok.encode("hi<|endoftext|>") == [..ids of "hi"..., id of "<|endoftext|>"]
        """
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        ids: list[int] = []
        for piece in _split_with(text, self._special_re):
            special_id = self._special_ids.get(piece)
            if special_id is not None:
                ids.append(special_id)
            else:
                ids.extend(self._encode_pretokens(pretokenize(piece)))
        return ids

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Lazily encode a stream of strings (e.g. an open file, line by line).

        Yields exactly ``encode("".join(iterable))`` for any chunking, while
        holding only about one pre-token of text at a time: ``_iter_batches``
        (below the class) hands out the text that more chunks can no longer change.
        """
        for pretokens, special in _iter_batches(iterable, self._special_re, self._max_special_len):
            yield from self._encode_pretokens(pretokens)
            if special is not None:
                yield self._special_ids[special]

    # -- decoding ------------------------------------------------------------

    def decode(self, ids: list[int]) -> str:
        """Concatenate the tokens' bytes and decode as UTF-8 (bad bytes become U+FFFD)."""
        parts: list[bytes] = []
        vocab = self.vocab
        for i in ids:
            tok = None if isinstance(i, bool) or not isinstance(i, int) else vocab.get(i)
            if tok is None:
                raise ValueError(f"unknown token id {i!r}: not in the vocabulary")
            parts.append(tok)
        return b"".join(parts).decode("utf-8", errors="replace")


# -- GPT-2's file format ------------------------------------------------------
#
# vocab.json maps each token, rendered with ``bytes_to_unicode``, to its id;
# merges.txt lists one merge per line as two rendered tokens separated by a
# space, optionally after a "#version" line. A rendered token never contains
# a real space (the space byte renders as "Ġ"), so splitting on " " is safe.

_TO_CHAR = bytes_to_unicode()
_TO_BYTE = unicode_to_bytes()


def _render(token: bytes) -> str:
    """A token's bytes as GPT-2's printable characters: b" the" becomes "Ġthe"."""
    return "".join(_TO_CHAR[b] for b in token)


def _unrender(text: str, path: str | os.PathLike, where: str) -> bytes:
    """The bytes a rendered token stands for; a character outside GPT-2's table is a ValueError."""
    try:
        return bytes(_TO_BYTE[ch] for ch in text)
    except KeyError as e:
        raise ValueError(f"{os.fspath(path)}: {where}: {e.args[0]!r} is not a GPT-2 byte character") from None


def _read_vocab(path: str | os.PathLike) -> dict[int, bytes]:
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


def _read_merges(path: str | os.PathLike) -> list[tuple[bytes, bytes]]:
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


def _write_vocab(vocab: dict[int, bytes], path: str | os.PathLike) -> None:
    """Write ``{rendered token: id}`` as JSON, in id order, non-ASCII characters as they are."""
    data = {_render(tok): i for i, tok in sorted(vocab.items())}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2)
        f.write("\n")


def _write_merges(merges: list[tuple[bytes, bytes]], path: str | os.PathLike) -> None:
    """Write one merge per line, in rank order, after GPT-2's "#version" line."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{_render(a)} {_render(b)}\n")


# -- streaming: what encode_iterable may emit before the text ends -------------
#
# ``encode_iterable`` must give exactly the ids of ``encode("".join(chunks))``
# whatever the chunking, without holding the whole text. A chunk boundary may
# fall inside a special token, inside a run of spaces or inside a word, so
# after each chunk we emit only what more text cannot change and carry the
# rest over:
#
# * Special tokens: the match decision at position p depends on at most
#   ``max_special_len`` characters, so matches starting before
#   ``len(buf) - max_special_len + 1`` are settled; anything later could still
#   become (part of) a special token.
# * Pre-tokens: GPT-2's regex looks at most one character past a match, except
#   for contractions ("'ll" looks two ahead) and whitespace runs (which stretch
#   to the end of the run). So every pre-token but the last is final, unless it
#   starts within the last two characters ("'l" may become "'ll").
#
# The carry-over is thus at most the longest pre-token plus a few characters.

_Batch = tuple[list[str], "str | None"]  # settled pre-tokens, then maybe a special token


def _settle(buf: str, special_re: "regex.Pattern[str] | None", max_len: int) -> Generator[_Batch, None, int]:
    """Yield the settled batches at the start of ``buf``; return where the rest begins.

    A generator rather than a list of batches: a 1 MiB chunk holds hundreds of
    thousands of pre-tokens, and materialising them all at once would
    multiply the memory a stream needs by ten.
    """
    pos = 0
    safe = len(buf) - max_len + 1 if special_re is not None else len(buf)
    if special_re is not None:
        for m in special_re.finditer(buf):
            if m.start() >= safe:
                break
            yield pretokenize(buf[pos : m.start()]), m.group()
            pos = m.end()
    settled = buf[pos : max(pos, safe)]
    tokens = pretokenize(settled)
    # Final: every pre-token but the last, unless it starts in the last two characters.
    keep, offset, limit = 0, 0, len(settled) - 2
    for t in tokens[:-1]:
        if offset >= limit:
            break
        offset += len(t)
        keep += 1
    if keep:
        yield tokens[:keep], None
    return pos + offset


def _iter_batches(
    chunks: Iterable[str], special_re: "regex.Pattern[str] | None", max_special_len: int
) -> Iterator[_Batch]:
    """Yield ``(pre-tokens, special or None)`` batches of the concatenated chunks, lazily."""
    buf = ""
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"encode_iterable expects str chunks, got {type(chunk).__name__}")
        if not chunk:
            continue
        buf += chunk
        keep = yield from _settle(buf, special_re, max_special_len)
        buf = buf[keep:]
    # The stream has ended: everything left is final.
    pos = 0
    if special_re is not None:
        for m in special_re.finditer(buf):
            yield pretokenize(buf[pos : m.start()]), m.group()
            pos = m.end()
    yield pretokenize(buf[pos:]), None
