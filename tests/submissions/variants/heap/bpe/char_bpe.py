"""Part 1 in a Counter style: insertion order of the Counter is first-occurrence order."""
from collections import Counter


def merge(ids, pair, new_id):
    pair = tuple(pair)
    out, skip = [], False
    for i, x in enumerate(ids):
        if skip:
            skip = False
            continue
        if tuple(ids[i:i + 2]) == pair:
            out.append(new_id)
            skip = True
        else:
            out.append(x)
    return out


class CharBPE:
    def __init__(self, vocab, merges):
        self.vocab = [str(v) for v in vocab]
        self.merges = [[list(p), n] for p, n in merges]

    @classmethod
    def train(cls, text, num_merges):
        if not isinstance(text, str):
            raise TypeError("text must be str")
        if type(num_merges) is bool or not isinstance(num_merges, int):
            raise ValueError("num_merges must be an int")
        if num_merges < 0:
            raise ValueError("num_merges must be >= 0")
        chars = sorted(set(text).difference("\ufffd"))
        vocab = ["\ufffd", *chars]
        pos = {c: i + 1 for i, c in enumerate(chars)}
        ids = [pos[c] if c in pos else 0 for c in text]
        merges = []
        while len(merges) < num_merges:
            pairs = Counter(p for p in zip(ids, ids[1:]) if "\n" not in vocab[p[0]] and "\n" not in vocab[p[1]])
            if not pairs:
                break
            top, n = max(pairs.items(), key=lambda kv: kv[1])  # first maximal = earliest first occurrence
            if n < 2:
                break
            merges.append([list(top), len(vocab)])
            vocab.append(vocab[top[0]] + vocab[top[1]])
            ids = merge(ids, top, len(vocab) - 1)
        return cls(vocab, merges)

    def encode(self, text):
        first = {}
        for i, s in enumerate(self.vocab):
            if len(s) == 1:
                first.setdefault(s, i)
        ids = [first.get(c, 0) for c in text]
        for pair, n in self.merges:
            ids = merge(ids, pair, n)
        return ids

    def decode(self, ids):
        try:
            return "".join(self.vocab[i] if type(i) is int and i >= 0 else self.vocab[None] for i in ids)
        except (IndexError, TypeError):
            bad = next(i for i in ids if not (type(i) is int and 0 <= i < len(self.vocab)))
            raise ValueError(f"id {bad} is not in the vocabulary") from None

    def state(self):
        return {"vocab": self.vocab[:], "merges": [[list(p), n] for p, n in self.merges]}
