"""Part 2 with pre-tokenization counted by a multiprocessing Pool (fork), then
the heap variant's lazy max-heap of pair counts over words stored as tuples of bytes."""
import heapq
import multiprocessing
import os
from collections import Counter, defaultdict

from .pretokenize import pretokenize, split_on_special_tokens

START_METHOD = "fork"


class _Desc:
    """Orders a (bytes, bytes) pair backwards so heapq's min is the lexicographically greatest."""
    __slots__ = ("pair",)

    def __init__(self, pair):
        self.pair = pair

    def __lt__(self, other):
        return self.pair > other.pair

    def __eq__(self, other):
        return self.pair == other.pair


def _count(pieces):
    """Runs in a pool worker: the pre-token counts of some text pieces (none holds a special token)."""
    freq = Counter()
    for piece in pieces:
        freq.update(pretokenize(piece))
    return freq


def _words(path, specials):
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"cannot decode {os.fspath(path)} as UTF-8: {e}") from None
    pieces = [p for p in split_on_special_tokens(text, specials) if p not in specials]
    jobs = [pieces[k::4] for k in range(4)]
    raw = text.encode("utf-8")
    if not specials and len(raw) >= 8192:
        # BUG: with no special token to cut at, a large file is cut into one byte range per core,
        # wherever they fall (inside a pre-token, too)
        n = os.cpu_count() or 1  # one byte range per core, as a real trainer did
        if n > 1:
            jobs = [[raw[k * len(raw) // n : (k + 1) * len(raw) // n].decode("utf-8", "ignore")] for k in range(n)]
    freq = Counter()
    with multiprocessing.get_context(START_METHOD).Pool(2) as pool:
        for part in pool.map(_count, jobs):
            freq.update(part)
    return {tuple(bytes([b]) for b in w.encode("utf-8")): n for w, n in freq.items()}


def train_bpe(input_path, vocab_size, special_tokens):
    specials = list(dict.fromkeys(special_tokens))
    if "" in specials:
        raise ValueError("empty special token")
    if vocab_size < 256 + len(specials):
        raise ValueError("vocab_size too small for the byte alphabet and the special tokens")
    words = _words(input_path, set(specials))
    vocab = {b: bytes([b]) for b in range(256)}
    vocab.update({256 + k: s.encode("utf-8") for k, s in enumerate(specials)})

    word_list = list(words.items())
    seqs = [list(w) for w, _ in word_list]
    freqs = [n for _, n in word_list]
    count = defaultdict(int)
    holders = defaultdict(set)
    for k, seq in enumerate(seqs):
        for pair in zip(seq, seq[1:]):
            count[pair] += freqs[k]
            holders[pair].add(k)
    heap = [(-n, _Desc(p)) for p, n in count.items()]
    heapq.heapify(heap)

    merges = []
    while len(vocab) < vocab_size and heap:
        neg, d = heapq.heappop(heap)
        pair = d.pair
        if count.get(pair, 0) != -neg or -neg <= 0:
            continue  # stale entry
        merges.append(pair)
        joined = pair[0] + pair[1]
        vocab[len(vocab)] = joined
        touched = set()
        for k in holders.pop(pair):
            seq, n = seqs[k], freqs[k]
            if len(seq) < 2:
                continue
            new, i = [], 0
            while i < len(seq):
                if i + 1 < len(seq) and seq[i] == pair[0] and seq[i + 1] == pair[1]:
                    new.append(joined)
                    i += 2
                else:
                    new.append(seq[i])
                    i += 1
            if len(new) == len(seq):
                continue
            for p in zip(seq, seq[1:]):
                count[p] -= n
                touched.add(p)
            for p in zip(new, new[1:]):
                count[p] += n
                holders[p].add(k)
                touched.add(p)
            seqs[k] = new
        count.pop(pair, None)
        for p in touched:
            if p != pair and count.get(p, 0) > 0:
                heapq.heappush(heap, (-count[p], _Desc(p)))
    return vocab, merges
