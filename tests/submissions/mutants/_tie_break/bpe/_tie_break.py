"""A stand-in for the reference's merge loop with a swappable tie-break (catalogue mutants).

Incremental pair counts, a linear scan for the most frequent pairs, then `@TIE@` picks one of the
tied pairs: each tie-break mutant fills in a different classic mistake. Each row also edits
`train_bpe` (bpe/training.py) to call this `learn_merges` instead of the reference's.
"""
from collections import defaultdict


def learn_merges(word_counts, vocab, num_merges, *, large=False):
    words = [list(w) for w in word_counts]
    freqs = list(word_counts.values())
    counts = defaultdict(int)
    where = defaultdict(set)
    born = {}  # pair -> when it was first counted (corpus order, then merge order)
    for wi, w in enumerate(words):
        for p in zip(w, w[1:]):
            counts[p] += freqs[wi]
            where[p].add(wi)
            born.setdefault(p, len(born))
    merges = []
    next_id = max(vocab) + 1
    id_of = {vocab[i]: i for i in range(256)}
    while len(merges) < num_merges:
        if not counts:
            break
        top = max(counts.values())
        tied = [p for p, c in counts.items() if c == top]
        best = @TIE@
        a, b = best
        token = vocab[a] + vocab[b]
        vocab[next_id] = token
        new_id = id_of.setdefault(token, next_id)  # a token spelled twice keeps its first id in words
        next_id += 1
        merges.append((vocab[a], vocab[b]))
        for wi in list(where.pop(best, ())):
            w, f = words[wi], freqs[wi]
            for p in zip(w, w[1:]):
                counts[p] -= f
                if not counts[p]:
                    del counts[p]
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(new_id)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[wi] = out
            for p in zip(out, out[1:]):
                counts[p] += f
                where[p].add(wi)
                born.setdefault(p, len(born))
        counts.pop(best, None)
    return merges
