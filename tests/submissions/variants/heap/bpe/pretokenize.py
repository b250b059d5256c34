"""Special tokens found with str.find (earliest, then longest); GPT-2 pattern via `regex`."""
import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_PAT = regex.compile(GPT2_PATTERN)


def split_on_special_tokens(text, special_tokens):
    specials = [s for s in dict.fromkeys(special_tokens) if s]
    out, i = [], 0
    nxt = {s: text.find(s) for s in specials}
    while True:
        live = [(p, -len(s), s) for s, p in nxt.items() if p >= 0]
        if not live:
            break
        p, _, s = min(live)
        if p > i:
            out.append(text[i:p])
        out.append(s)
        i = p + len(s)
        for t in specials:
            if 0 <= nxt[t] < i:
                nxt[t] = text.find(t, i)
    if i < len(text):
        out.append(text[i:])
    return out


def pretokenize(text):
    return [m.group(0) for m in _PAT.finditer(text)]
