"""Throwaway submissions for testing the efficiency gates: the reference with one part swapped.

Each variant is a copy of solution/ whose swapped part uses only the public API (pretokenize,
split_on_special_tokens, .vocab, .merges, .special_tokens), so the variants do not depend on how the
reference is organised inside.
- "slow": a naive trainer that recounts every pair at every merge, an encoder that replays every
  merge over the whole text, and an encode_iterable that reads everything before yielding (then
  encodes it with the reference's fast encoder): every efficiency gate must fail it.
- "simple": an incremental trainer that finds the max with a plain linear scan, and an encoder
  without a pre-token cache: both speed gates must pass it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]

_COMMON = """
from .pretokenize import pretokenize, split_on_special_tokens


def _pretoken_counts(input_path, specials):
    with open(input_path, encoding="utf-8", newline="") as f:
        text = f.read()
    counts = {}
    for piece in split_on_special_tokens(text, specials):
        if piece not in specials:
            for word in pretokenize(piece):
                counts[word] = counts.get(word, 0) + 1
    return counts


def _start(vocab_size, special_tokens):
    specials = list(dict.fromkeys(special_tokens))
    vocab = {i: bytes([i]) for i in range(256)}
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")
    return specials, vocab


def _merge(tokens, a, b):
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i] == a and tokens[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out
"""

NAIVE_TRAINING = (
    '"""Variant: recounts every pair at every merge."""\n'
    + _COMMON
    + """

def train_bpe(input_path, vocab_size, special_tokens):
    specials, vocab = _start(vocab_size, special_tokens)
    counts = _pretoken_counts(input_path, specials)
    words = [[bytes([b]) for b in w.encode("utf-8")] for w in counts]
    freqs = list(counts.values())
    merges = []
    while len(vocab) < vocab_size:
        pairs = {}
        for w, f in zip(words, freqs):
            for p in zip(w, w[1:]):
                pairs[p] = pairs.get(p, 0) + f
        if not pairs:
            break
        a, b = max(pairs, key=lambda p: (pairs[p], p))
        merges.append((a, b))
        vocab[len(vocab)] = a + b
        words = [_merge(w, a, b) if len(w) > 1 else w for w in words]
    return vocab, merges
"""
)

INCREMENTAL_TRAINING = (
    '"""Variant: incremental pair counts, plain linear scan for the max."""\n'
    + _COMMON
    + """

def train_bpe(input_path, vocab_size, special_tokens):
    specials, vocab = _start(vocab_size, special_tokens)
    counts = _pretoken_counts(input_path, specials)
    words = [[bytes([b]) for b in w.encode("utf-8")] for w in counts]
    freqs = list(counts.values())
    pairs, where = {}, {}
    for k, (w, f) in enumerate(zip(words, freqs)):
        for p in zip(w, w[1:]):
            pairs[p] = pairs.get(p, 0) + f
            where.setdefault(p, set()).add(k)
    merges = []
    while len(vocab) < vocab_size and pairs:
        a, b = max(pairs, key=lambda p: (pairs[p], p))
        merges.append((a, b))
        vocab[len(vocab)] = a + b
        for k in where.pop((a, b), ()):
            w, f = words[k], freqs[k]
            new = _merge(w, a, b)
            if new == w:
                continue
            for p in zip(w, w[1:]):
                pairs[p] -= f
                if pairs[p] == 0:
                    del pairs[p]
            for p in zip(new, new[1:]):
                pairs[p] = pairs.get(p, 0) + f
                if a + b in p:  # only pairs with the new token are new to the index
                    where.setdefault(p, set()).add(k)
            words[k] = new
        pairs.pop((a, b), None)
    return vocab, merges
"""
)

_ENCODE_COMMON = """

def _ids_of(self):
    return {token: i for i, token in self.vocab.items()}


def _encode_with(self, text, encode_words):
    ids = _ids_of(self)
    specials = sorted(self.special_tokens or [], key=len, reverse=True)
    out = []
    for piece in split_on_special_tokens(text, specials):
        if piece in specials:
            out.append(ids[piece.encode("utf-8")])
        else:
            out.extend(ids[t] for word in encode_words(self, pretokenize(piece)) for t in word)
    return out
"""

REPLAY_ENCODE = (
    """

# Variant: replay every merge, in order, over the whole text.
from .pretokenize import pretokenize, split_on_special_tokens
"""
    + _ENCODE_COMMON
    + """

def _replay(self, pretokens):
    words = [[bytes([b]) for b in p.encode("utf-8")] for p in pretokens]
    for a, b in self.merges:
        for k, w in enumerate(words):
            if len(w) > 1:
                out, i = [], 0
                while i < len(w):
                    if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                        out.append(a + b)
                        i += 2
                    else:
                        out.append(w[i])
                        i += 1
                words[k] = out
    return words


BPETokenizer.encode = lambda self, text: _encode_with(self, text, _replay)
"""
)

SLURP_STREAM = """

# Variant: encode_iterable reads everything into memory first (then encodes it quickly).
_fast_encode = BPETokenizer.encode


def _slurp(self, iterable):
    text = "".join(iterable)
    yield from _fast_encode(self, text)


BPETokenizer.encode_iterable = _slurp
"""

UNCACHED_ENCODE = (
    """

# Variant: merge each pre-token by rank, with no cache at all.
from .pretokenize import pretokenize, split_on_special_tokens
"""
    + _ENCODE_COMMON
    + """

def _by_rank(self, pretokens):
    ranks = {pair: r for r, pair in enumerate(self.merges)}
    for p in pretokens:
        parts = [bytes([b]) for b in p.encode("utf-8")]
        while len(parts) > 1:
            ranked = [(ranks[q], q) for q in zip(parts, parts[1:]) if q in ranks]
            if not ranked:
                break
            a, b = min(ranked)[1]
            out, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        yield parts


BPETokenizer.encode = lambda self, text: _encode_with(self, text, _by_rank)
"""
)


VARIANTS = {
    "slow": (NAIVE_TRAINING, SLURP_STREAM + REPLAY_ENCODE),
    "simple": (INCREMENTAL_TRAINING, UNCACHED_ENCODE),
}


def make_variant(kind: str, parent: Path) -> Path:
    """Write the variant `kind` (see VARIANTS) as parent/<kind>/bpe; return parent/<kind>."""
    root = parent / kind
    shutil.copytree(KIT / "solution" / "bpe", root / "bpe", ignore=shutil.ignore_patterns("__pycache__"))
    training, tokenizer_patch = VARIANTS[kind]
    (root / "bpe" / "training.py").write_text(training, encoding="utf-8")
    with open(root / "bpe" / "tokenizer.py", "a", encoding="utf-8") as f:
        f.write(tokenizer_patch)
    return root
