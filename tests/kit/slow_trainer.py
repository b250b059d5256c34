"""A slow, obviously correct byte-level BPE trainer, for cross-checking.

It shares no code with the reference: it splits on specials with its own
regex, keeps every pre-token occurrence as a list of byte strings and
recounts every pair from scratch after every merge. Far too slow for real
corpora, easy to believe for small ones.
"""

import itertools

import regex

PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def slow_train_bpe(
    text: str, vocab_size: int, special_tokens: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    specials = list(dict.fromkeys(special_tokens))
    vocab = {i: bytes([i]) for i in range(256)}
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")

    if specials:
        alternation = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
        pieces = regex.split(f"(?:{alternation})", text)  # specials are dropped
    else:
        pieces = [text]
    words = [
        [bytes([b]) for b in pre.encode("utf-8")] for piece in pieces for pre in regex.findall(PATTERN, piece)
    ]

    merges = []
    while len(vocab) < vocab_size:
        counts: dict[tuple[bytes, bytes], int] = {}
        for w in words:
            for pair in itertools.pairwise(w):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        for k, w in enumerate(words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[k] = out
    return vocab, merges
