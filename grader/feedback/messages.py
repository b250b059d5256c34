"""Failure messages for the training tests: where the merges first differ, and why.

The message is computed on the trusted side from the corpus: it replays the EXPECTED merges up to
the first difference, lists the pairs that were tied for first place at that step (with counts), and
names a classic mistake when one reproduces the student's merges exactly.
"""
from __future__ import annotations

from grader.feedback.render import show, show_pair
from grader.feedback.trainer import CORRECT, Replay
from grader.feedback.wrong_rules import matching_wrong_rules

MAX_TIED_SHOWN = 8


def first_difference(expected: list, got: list) -> int | None:
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            return i
    if len(expected) != len(got):
        return min(len(expected), len(got))
    return None


def explain_merges(text: str, vocab_size: int, specials: list[str],
                   expected: list[tuple[bytes, bytes]], got: list[tuple[bytes, bytes]]) -> str | None:
    """None when equal; otherwise a friendly multi-line explanation of the first difference."""
    k = first_difference(expected, got)
    if k is None:
        return None
    if k == 0:
        lines = ["Your very first merge (merge #0) already differs from the expected one."]
    else:
        lines = [f"Your merges match the expected ones for the first {k} merge(s), then differ at merge #{k} "
                 f"(counting from 0)."]
    if k >= len(got):
        lines.append(f"You stopped after {len(got)} merges, but {len(expected)} were expected "
                     f"(next expected: {show_pair(expected[k])}).")
        lines.append("Keep merging until the vocabulary reaches vocab_size, or until no pair is left at all.")
        replay = Replay(text, specials, CORRECT)
        for pair in expected[:k]:
            replay.apply(pair)
        if max(replay.counts().values(), default=0) == 1:
            lines.append("At that point every pair occurs only once: unlike CharBPE, train_bpe still merges "
                         "pairs that occur once.")
        return "\n".join(lines)
    if k >= len(expected):
        lines.append(f"You made {len(got)} merges but only {len(expected)} were expected: after that, no pair "
                     f"is left to merge (extra merge: {show_pair(got[k])}).")
        return "\n".join(lines)
    lines.append(f"  expected: {show_pair(expected[k])}")
    lines.append(f"  got:      {show_pair(got[k])}")
    replay = Replay(text, specials, CORRECT)
    for pair in expected[:k]:
        replay.apply(pair)
    counts = replay.counts()
    top = max(counts.values()) if counts else 0
    tied = sorted((p for p, n in counts.items() if n == top), reverse=True)
    if len(tied) == 1:
        lines.append(f"At that step (after the expected merges before it), the single most frequent pair is "
                     f"{show_pair(tied[0])}, with {top} occurrences.")
    else:
        lines.append(f"At that step (after the expected merges before it), {len(tied)} pairs are tied at {top} "
                     f"occurrences; the greatest one wins (bytes compared lexicographically):")
    for pair in (tied[:MAX_TIED_SHOWN] if len(tied) > 1 else []):
        lines.append(f"    {show_pair(pair)}")
    if len(tied) > MAX_TIED_SHOWN:
        lines.append(f"    ... and {len(tied) - MAX_TIED_SHOWN} more")
    got_count = counts.get(tuple(got[k]))
    if got_count is None:
        lines.append(f"Your pair {show_pair(got[k])} does not occur at all at this step (inside one pre-token, "
                     f"outside special tokens).")
    elif got_count != top:
        lines.append(f"Your pair {show_pair(got[k])} occurs only {got_count} time(s) at this step.")
    wrong = matching_wrong_rules(text, vocab_size, specials, got, k)
    if len(wrong) == 1:
        lines.append("Likely cause: " + wrong[0].name + ".")
        lines.append("  " + wrong[0].explanation)
    elif wrong:
        lines.append("Your merges are exactly what each of these mistakes gives on this corpus:")
        for rule in wrong:
            lines.append(f"  - {rule.name}: {rule.explanation}")
    return "\n".join(lines)


def explain_vocab(expected: dict[int, bytes], got: dict[int, bytes], n_specials: int = 0) -> str | None:
    """None when equal; otherwise the first differences, in words."""
    if got == expected:
        return None
    lines = []
    if len(got) != len(expected):
        lines.append(f"Your vocabulary has {len(got)} entries; expected {len(expected)}.")
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    if missing:
        lines.append(f"Missing ids (first few): {missing[:5]}")
    if extra:
        lines.append(f"Unexpected ids (first few): {extra[:5]}")
    wrong_ids = [i for i in sorted(set(expected) & set(got)) if expected[i] != got[i]]
    for i in wrong_ids[:5]:
        lines.append(f"  id {i}: expected {show(expected[i])}, got {show(got[i])}")
    if wrong_ids:
        first = wrong_ids[0]
        if first < 256:
            lines.append("Ids 0-255 must be the single bytes, id == byte value (vocab[97] == b'a').")
        elif first < 256 + n_specials:
            lines.append("After the 256 bytes come the special tokens, in the order given (each once), "
                         "as UTF-8 bytes.")
        else:
            lines.append("After the specials, each merge adds one id, in the order the merges were made.")
    return "\n".join(lines)
