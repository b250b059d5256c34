"""Part 2: byte-level BPE training with incremental pair counts and a linear scan for the best pair."""
from __future__ import annotations

import os
from collections import Counter, defaultdict

from .pretokenize import pretokenize, split_on_special_tokens


def _read(path) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{os.fspath(path)}: not valid UTF-8 ({e.reason} at byte {e.start})") from None


def train_bpe(input_path, vocab_size: int, special_tokens: list[str]):
    specials: list[str] = []
    for s in special_tokens:
        if s == "":
            raise ValueError("a special token may not be empty")
        if s not in specials:
            specials.append(s)
    if vocab_size < 256 + len(specials):
        raise ValueError(f"vocab_size {vocab_size} is smaller than 256 bytes + {len(specials)} special tokens")
    text = _read(input_path)

    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")

    freq: Counter[str] = Counter()
    for piece in split_on_special_tokens(text, specials):
        if piece in specials:
            continue
        freq.update(pretokenize(piece))
    words = [list(w.encode("utf-8")) for w in freq]
    counts = list(freq.values())

    pair_counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    for wi, w in enumerate(words):
        for p in zip(w, w[1:]):
            pair_counts[p] += counts[wi]
            where[p].add(wi)

    merges: list[tuple[bytes, bytes]] = []
    spelled = {bytes([i]): i for i in range(256)}
    while len(vocab) < vocab_size:
        if not pair_counts:
            break
        top = max(pair_counts.values())
        best = max((p for p, c in pair_counts.items() if c == top), key=lambda p: (vocab[p[0]], vocab[p[1]]))
        token = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        # the same bytes can be made twice (a+bc, ab+c): words keep using the first id
        new_id = spelled.setdefault(token, len(vocab))
        vocab[len(vocab)] = token
        for wi in list(where[best]):
            w = words[wi]
            c = counts[wi]
            for p in zip(w, w[1:]):
                left = pair_counts[p] - c
                if left:
                    pair_counts[p] = left
                else:
                    del pair_counts[p]
            out: list[int] = []
            i = 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == best[0] and w[i + 1] == best[1]:
                    out.append(new_id)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[wi] = out
            for p in zip(out, out[1:]):
                pair_counts[p] += c
                where[p].add(wi)
        pair_counts.pop(best, None)
        where.pop(best, None)
    return vocab, merges
