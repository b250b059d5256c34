"""Part 2 with pre-tokenization spread over many processes (mode "@MODE@"), as real courses write it,
then the heap variant's lazy max-heap of pair counts over words stored as tuples of bytes.

- "manager": 32 processes each put their counts in a multiprocessing.Manager() dict;
- "pool_per_call": a Pool of 32 workers started (and ended) by every call;
- "threads": a Pool of 32 workers, each counting its share with 16 threads (a stand-in for the
  BLAS threads a numpy in every process would start);
- "over_budget": 100 processes of 64 threads each, all at once, more than one grading may run: the
  process that is refused prints its traceback and the caller waits for ever for it (or, when its
  own fork is refused first, raises).
"""
import heapq
import multiprocessing
import os
import threading
from collections import Counter, defaultdict

from .pretokenize import pretokenize, split_on_special_tokens

MODE = "@MODE@"
PROCESSES = 100 if MODE == "over_budget" else 32
THREADS = 64 if MODE == "over_budget" else 16


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
    """The pre-token counts of some text pieces (none holds a special token)."""
    freq = Counter()
    for piece in pieces:
        freq.update(pretokenize(piece))
    return freq


def _count_into(k, pieces, results):
    """Runs in a process of its own: its counts, into the Manager's dict."""
    results[k] = _count(pieces)


def _count_threaded(pieces):
    """Runs in a pool worker: its share counted by THREADS threads at once."""
    parts, lock = Counter(), threading.Lock()

    def work(share):
        freq = _count(share)
        with lock:
            parts.update(freq)

    threads = [threading.Thread(target=work, args=(pieces[t::THREADS],)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return parts


def _hold_threads(pieces, ready, go, queue):
    """Runs in a process of its own: THREADS threads that hold on until every process has started
    its own (so all of them run at once, however slowly the machine starts them), then its counts."""
    threads = [threading.Thread(target=go.wait) for _ in range(THREADS)]
    for t in threads:
        t.start()
    ready.put(1)
    for t in threads:
        t.join()
    queue.put(_count(pieces))


def _jobs(pieces):
    # cut only between pieces (at special tokens): a pre-token is never split across two jobs
    return [pieces[k::PROCESSES] for k in range(PROCESSES)]


def _spread(pieces):
    freq = Counter()
    if MODE == "manager":
        with multiprocessing.Manager() as manager:
            results = manager.dict()
            procs = [
                multiprocessing.Process(target=_count_into, args=(k, job, results))
                for k, job in enumerate(_jobs(pieces))
            ]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
            for part in results.values():
                freq.update(part)
    elif MODE in ("pool_per_call", "threads"):
        work = _count_threaded if MODE == "threads" else _count
        with multiprocessing.Pool(PROCESSES) as pool:
            for part in pool.map(work, _jobs(pieces)):
                freq.update(part)
    else:
        ready, go, queue = multiprocessing.Queue(), multiprocessing.Event(), multiprocessing.Queue()
        procs = [
            multiprocessing.Process(target=_hold_threads, args=(job, ready, go, queue))
            for job in _jobs(pieces)
        ]
        for p in procs:
            p.start()
        for _ in procs:
            ready.get()
        go.set()
        for _ in procs:
            freq.update(queue.get())
        for p in procs:
            p.join()
    return freq


def _words(path, specials):
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"cannot decode {os.fspath(path)} as UTF-8: {e}") from None
    pieces = [p for p in split_on_special_tokens(text, specials) if p not in specials]
    freq = _spread(pieces)
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
