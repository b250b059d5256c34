"""Part 3: encode/decode with learned merges; each pre-token merged by lowest rank until none applies."""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from .gpt2_bytes import bytes_to_unicode, unicode_to_bytes
from .pretokenize import pretokenize, split_on_special_tokens

_CACHE_LIMIT = 50_000


class BPETokenizer:
    def __init__(self, vocab, merges, special_tokens=None):
        self.vocab = dict(vocab)
        self.merges = [(bytes(a), bytes(b)) for a, b in merges]
        self.special_tokens = list(special_tokens) if special_tokens is not None else []
        present = set(self.vocab.values())
        for s in self.special_tokens:
            b = s.encode("utf-8")
            if b not in present:
                self.vocab[max(self.vocab, default=-1) + 1] = b
                present.add(b)
        self._id_of = {}
        for i, b in sorted(self.vocab.items()):
            self._id_of.setdefault(b, i)
        self._rank = {}
        for r, pair in enumerate(self.merges):
            if not all(t in self._id_of for t in (*pair, pair[0] + pair[1])):
                raise ValueError(f"merge {r} {pair!r} uses or makes a token missing from the vocab")
            self._rank.setdefault(pair, r)
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def from_files(cls, vocab_filepath, merges_filepath, special_tokens=None):
        dec = unicode_to_bytes()
        with open(vocab_filepath, encoding="utf-8") as f:
            rendered = json.load(f)
        for tok, i in rendered.items():
            if isinstance(i, bool) or not isinstance(i, int):
                raise ValueError(f"{vocab_filepath}: the id of {tok!r} is {i!r}, not an integer")
        vocab = {i: bytes(dec[c] for c in tok) for tok, i in rendered.items()}
        merges = []
        with open(merges_filepath, encoding="utf-8") as f:
            for n, line in enumerate(f):
                line = line.rstrip("\r\n")
                if not line or (n == 0 and line.startswith("#version")):
                    continue
                a, b = line.split(" ")
                merges.append((bytes(dec[c] for c in a), bytes(dec[c] for c in b)))
        return cls(vocab, merges, special_tokens)

    def save(self, vocab_filepath, merges_filepath) -> None:
        enc = bytes_to_unicode()
        render = lambda b: "".join(enc[x] for x in b)
        with open(vocab_filepath, "w", encoding="utf-8") as f:
            json.dump({render(b): i for i, b in sorted(self.vocab.items())}, f, ensure_ascii=False)
        with open(merges_filepath, "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n")
            for a, b in self.merges:
                f.write(f"{render(a)} {render(b)}\n")

    def _encode_word(self, word: str) -> list[int]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        parts = [bytes([x]) for x in word.encode("utf-8")]
        while len(parts) > 1:
            best_rank, best_i = None, -1
            for i in range(len(parts) - 1):
                r = self._rank.get((parts[i], parts[i + 1]))
                if r is not None and (best_rank is None or r < best_rank):
                    best_rank, best_i = r, i
            if best_rank is None:
                break
            a, b = self.merges[best_rank]
            joined, out, i = a + b, [], 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                    out.append(joined)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        ids = [self._id_of[p] for p in parts]
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        specials = set(self.special_tokens)
        for piece in split_on_special_tokens(text, self.special_tokens):
            if piece in specials:
                ids.append(self._id_of[piece.encode("utf-8")])
            else:
                for word in pretokenize(piece):
                    ids.extend(self._encode_word(word))
        return ids

    def _held_from(self, buf: str) -> int:
        """Start of the longest tail of `buf` that could still grow into a special token."""
        for start in range(max(0, len(buf) - max((len(s) for s in self.special_tokens), default=0)), len(buf)):
            tail = buf[start:]
            if any(len(s) > len(tail) and s.startswith(tail) for s in self.special_tokens):
                break
        else:
            return len(buf)
        # never cut through a complete special token that straddles `start`
        pos = 0
        for piece in split_on_special_tokens(buf, self.special_tokens):
            if pos < start < pos + len(piece) and piece in self.special_tokens:
                return pos
            pos += len(piece)
        return start

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        specials = set(self.special_tokens)
        buf = ""
        for chunk in iterable:
            buf += chunk
            cut = self._held_from(buf)
            head, tail = buf[:cut], buf[cut:]
            pieces = split_on_special_tokens(head, self.special_tokens)
            keep = ""
            if pieces and pieces[-1] not in specials:
                words = pretokenize(pieces.pop())
                # the last pre-token may still grow, and so may the one before it ("'l" + "l" is "'ll")
                keep = "".join(words[-2:])
                del words[-2:]
                tail_words = words
            else:
                tail_words = []
            for piece in pieces:
                if piece in specials:
                    yield self._id_of[piece.encode("utf-8")]
                else:
                    for word in pretokenize(piece):
                        yield from self._encode_word(word)
            for word in tail_words:
                yield from self._encode_word(word)
            buf = keep + tail
        yield from self.encode(buf)

    def decode(self, ids: list[int]) -> str:
        out = []
        for i in ids:
            b = self.vocab.get(i) if isinstance(i, int) and not isinstance(i, bool) else None
            if b is None:
                raise ValueError(f"unknown token id {i!r}")
            out.append(b)
        return b"".join(out).decode("utf-8", errors="replace")
