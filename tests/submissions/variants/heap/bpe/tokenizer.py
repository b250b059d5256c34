"""Part 3: each pre-token is merged through a heap of (rank, position) over a linked list."""
import heapq
import json
from functools import lru_cache

from .gpt2_bytes import bytes_to_unicode, unicode_to_bytes
from .pretokenize import pretokenize, split_on_special_tokens


class BPETokenizer:
    def __init__(self, vocab, merges, special_tokens=None):
        self.vocab = {int(k): bytes(v) for k, v in vocab.items()}
        self.merges = list(merges)
        self.special_tokens = [] if special_tokens is None else list(special_tokens)
        known = set(self.vocab.values())
        for s in self.special_tokens:
            if s.encode("utf-8") not in known:
                self.vocab[max(self.vocab) + 1 if self.vocab else 0] = s.encode("utf-8")
                known.add(s.encode("utf-8"))
        self._ids = {}
        for k in sorted(self.vocab):
            self._ids.setdefault(self.vocab[k], k)
        self._ranks = {}
        for r, (a, b) in enumerate(self.merges):
            for token in (a, b, a + b):
                if token not in self._ids:
                    raise ValueError(f"merge {r} ({a!r}, {b!r}): {token!r} is not in the vocab")
            self._ranks.setdefault((a, b), r)
        self._word = lru_cache(maxsize=1 << 15)(self._encode_word)

    @classmethod
    def from_files(cls, vocab_filepath, merges_filepath, special_tokens=None):
        u2b = unicode_to_bytes()
        raw = lambda s: bytes(map(u2b.__getitem__, s))
        with open(vocab_filepath, "r", encoding="utf-8") as f:
            vocab = {v: raw(k) for k, v in json.load(f).items()}
        if any(type(v) is not int for v in vocab):
            raise ValueError(f"{vocab_filepath}: every id must be a JSON integer")
        with open(merges_filepath, "r", encoding="utf-8") as f:
            lines = f.read().splitlines()
        if lines and lines[0].startswith("#version"):
            lines = lines[1:]
        merges = [tuple(raw(x) for x in ln.split(" ")) for ln in lines if ln.strip()]
        return cls(vocab, merges, special_tokens)

    def save(self, vocab_filepath, merges_filepath):
        b2u = bytes_to_unicode()
        show = lambda b: "".join(b2u[x] for x in b)
        with open(vocab_filepath, "w", encoding="utf-8") as f:
            f.write(json.dumps({show(v): k for k, v in self.vocab.items()}, ensure_ascii=True))
        with open(merges_filepath, "w", encoding="utf-8") as f:
            f.write("".join(f"{show(a)} {show(b)}\n" for a, b in self.merges))

    def _encode_word(self, word):
        syms = [bytes([b]) for b in word.encode("utf-8")]
        n = len(syms)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        heap = []
        for i in range(n - 1):
            r = self._ranks.get((syms[i], syms[i + 1]))
            if r is not None:
                heap.append((r, i, syms[i], syms[i + 1]))
        heapq.heapify(heap)
        while heap:
            r, i, a, b = heapq.heappop(heap)
            j = nxt[i] if syms[i] is not None else n
            if syms[i] != a or j >= n or syms[j] != b:
                continue  # stale
            syms[i] = a + b
            syms[j] = None
            nxt[i] = nxt[j]
            if nxt[i] < n:
                prv[nxt[i]] = i
                r2 = self._ranks.get((syms[i], syms[nxt[i]]))
                if r2 is not None:
                    heapq.heappush(heap, (r2, i, syms[i], syms[nxt[i]]))
            if prv[i] >= 0:
                r2 = self._ranks.get((syms[prv[i]], syms[i]))
                if r2 is not None:
                    heapq.heappush(heap, (r2, prv[i], syms[prv[i]], syms[i]))
        return tuple(self._ids[s] for s in syms if s is not None)

    def encode(self, text):
        out = []
        for piece in split_on_special_tokens(text, self.special_tokens):
            if piece in self.special_tokens:
                out.append(self._ids[piece.encode("utf-8")])
            else:
                for w in pretokenize(piece):
                    out.extend(self._word(w))
        return out

    def encode_iterable(self, iterable):
        longest = max(map(len, self.special_tokens), default=0)
        pending = ""
        for chunk in iterable:
            pending += chunk
            # keep back anything that may still be the start of a special token
            hold = len(pending)
            for k in range(1, min(longest, len(pending) + 1)):
                end = pending[-k:]
                if any(s.startswith(end) and s != end for s in self.special_tokens):
                    hold = len(pending) - k
            if hold < len(pending):
                at = 0
                for piece in split_on_special_tokens(pending, self.special_tokens):
                    if piece in self.special_tokens and at < hold < at + len(piece):
                        hold = at  # a whole special token straddles the cut: keep it together
                        break
                    at += len(piece)
            ready, rest = pending[:hold], pending[hold:]
            pieces = split_on_special_tokens(ready, self.special_tokens)
            words = []
            if pieces and pieces[-1] not in self.special_tokens:
                # the last pre-token may still grow, and so may the one before it ("'l" + "l" is "'ll")
                words = pretokenize(pieces.pop())
                rest = "".join(words[-2:]) + rest
                del words[-2:]
            for piece in pieces:
                if piece in self.special_tokens:
                    yield self._ids[piece.encode("utf-8")]
                else:
                    for w in pretokenize(piece):
                        yield from self._word(w)
            for w in words:
                yield from self._word(w)
            pending = rest
        yield from self.encode(pending)

    def decode(self, ids):
        chunks = []
        for i in ids:
            try:
                if type(i) is not int:
                    raise TypeError
                chunks.append(self.vocab[i])
            except (KeyError, TypeError):
                raise ValueError(f"token id {i!r} is not in the vocabulary") from None
        return b"".join(chunks).decode("utf-8", "replace")
