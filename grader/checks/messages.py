"""Failure messages for the training tests: where the merges first differ, and why.

Everything comes from the case's stored diagnostics (`golden.Diagnostics`, written by `make
fixtures`): the pairs that were tied for first place at the first different step (with counts), and
the classic mistake whose merges are exactly the student's, when there is one.
"""

from __future__ import annotations

from grader.checks.diagnose import Diagnosed, Finding
from grader.checks.golden import Diagnostics
from grader.checks.mistakes import BY_ID, Mistake
from grader.checks.render import show, show_pair

MAX_TIED_SHOWN = 8
MISTAKE_LOOKAHEAD = 50  # a mistake is named when it reproduces this many merges past the first difference


def first_difference(expected: list, got: list) -> int | None:
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            return i
    if len(expected) != len(got):
        return min(len(expected), len(got))
    return None


def matching_mistakes(diagnostics: Diagnostics, got: list, first_diff: int) -> list[Mistake]:
    """The mistakes whose merges are exactly `got`, up to MISTAKE_LOOKAHEAD merges past `first_diff`."""
    n = min(len(got), first_diff + MISTAKE_LOOKAHEAD)
    if n <= first_diff:
        return []
    return [
        BY_ID[key]
        for key in BY_ID
        if key in diagnostics.mistakes and diagnostics.mistakes[key][:n] == list(got[:n])
    ]


def explain_merges(
    diagnostics: Diagnostics, expected: list[tuple[bytes, bytes]], got: list[tuple[bytes, bytes]]
) -> str | None:
    """None when equal; otherwise a friendly multi-line explanation of the first difference."""
    k = first_difference(expected, got)
    if k is None:
        return None
    if k == 0:
        lines = ["Your very first merge (merge #0) already differs from the expected one."]
    else:
        lines = [
            f"Your merges match the expected ones for the first {k} merge(s), then differ at merge #{k} "
            f"(counting from 0)."
        ]
    if k >= len(got):
        lines.append(
            f"You stopped after {len(got)} merges, but {len(expected)} were expected "
            f"(next expected: {show_pair(expected[k])})."
        )
        lines.append("Keep merging until the vocabulary reaches vocab_size, or until no pair is left at all.")
        if diagnostics.steps[k].top == 1:
            lines.append(
                "At that point every pair occurs only once: unlike CharBPE, train_bpe still merges "
                "pairs that occur once."
            )
        return "\n".join(lines)
    if k >= len(expected):
        lines.append(
            f"You made {len(got)} merges but only {len(expected)} were expected: after that, no pair "
            f"is left to merge (extra merge: {show_pair(got[k])})."
        )
        return "\n".join(lines)
    lines.append(f"  expected: {show_pair(expected[k])}")
    lines.append(f"  got:      {show_pair(got[k])}")
    step = diagnostics.steps[k]
    top = step.top
    tied = [pair for pair, n in step.counts.items() if n == top]
    if step.tied == 1:
        lines.append(
            f"At that step (after the expected merges before it), the single most frequent pair is "
            f"{show_pair(tied[0])}, with {top} occurrences."
        )
    else:
        lines.append(
            f"At that step (after the expected merges before it), {step.tied} pairs are tied at {top} "
            f"occurrences; the greatest one wins (bytes compared lexicographically):"
        )
        for pair in tied[:MAX_TIED_SHOWN]:
            lines.append(f"    {show_pair(pair)}")
        if step.tied > MAX_TIED_SHOWN:
            lines.append(f"    ... and {step.tied - MAX_TIED_SHOWN} more")
    mine = tuple(got[k])
    made = {bytes([b]) for b in range(256)} | {a + b for a, b in expected[:k]}
    got_count = step.counts.get(mine)
    if got_count == 0 or (got_count is None and (step.others == 0 or not set(mine) <= made)):
        lines.append(
            f"Your pair {show_pair(mine)} does not occur at all at this step (inside one pre-token, "
            f"outside special tokens)."
        )
    elif got_count is None and step.others == top:
        pass  # more pairs are tied than stored: it may be one of them, like the listed ones
    elif got_count is None:
        lines.append(
            f"Your pair {show_pair(mine)} is not among the most frequent pairs at this step: it occurs "
            f"at most {step.others} time(s)."
        )
    elif got_count != top:
        lines.append(f"Your pair {show_pair(mine)} occurs only {got_count} time(s) at this step.")
    wrong = matching_mistakes(diagnostics, got, k)
    if len(wrong) == 1:
        lines.append("Likely cause: " + wrong[0].name + ".")
        lines.append("  " + wrong[0].explanation)
    elif wrong:
        lines.append("Your merges are exactly what each of these mistakes gives on this corpus:")
        for mistake in wrong:
            lines.append(f"  - {mistake.name}: {mistake.explanation}")
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
            lines.append(
                "After the 256 bytes come the special tokens, in the order given (each once), as UTF-8 bytes."
            )
        else:
            lines.append("After the specials, each merge adds one id, in the order the merges were made.")
    return "\n".join(lines)


def explain_finding(finding: Finding, exercised: str | None = None) -> str:
    """The diagnosed stage in words, first line first (it is also the "same cause as" summary).

    `exercised` is the function the test calls; when the fault is elsewhere, the message says so,
    so that a student is never sent to fix `save` for a bug in `__init__`."""
    f = finding
    if f.stage == "split_on_special_tokens":
        text, specials = f.given
        head = "Your split_on_special_tokens cuts out the special tokens differently"
        body = (
            f"split_on_special_tokens({text!r:.160}, {specials!r}) should be {f.expected!r:.400}, "
            f"got {f.got!r:.400}. Special tokens are cut out first, literally, longest first; fix this first."
        )
    elif f.stage == "pretokenize":
        head = f"Your pretokenize splits {f.given!r:.120} differently"
        body = (
            f"pretokenize({f.given!r:.200}) should be {f.expected!r:.400}, got {f.got!r:.400}. "
            "Pre-tokens come before any merge: fix pretokenize first."
        )
    elif f.stage == "special_missing":
        head = f"The special token {f.given!r} never got an id"
        body = (
            f"the vocab has no entry for {f.given!r}. A special token missing from the given vocab "
            f"gets the next free id (here {f.expected}) when the tokenizer is built; encode then "
            "turns it into that one id."
            if f.where.startswith("BPETokenizer")
            else f"the vocab has no entry for {f.given!r}: after the 256 bytes come the special tokens, each once."
        )
    elif f.stage == "special_twice":
        head = f"Your vocab holds the special token {f.given!r} twice (ids {', '.join(map(str, f.got))})"
        body = (
            "a special token listed more than once counts once: it takes one id, and the merges "
            "fill the ids after the special tokens."
        )
    else:
        head = f"Your vocab differs at id {f.given}: expected {_shown(f.expected)}, got {_shown(f.got)}"
        body = "The vocab is bytes 0-255 (id == byte value), then each special token once, then one id per merge."
    lines = [f"{head}: {body}"]
    if exercised and exercised != f.where:
        lines.insert(0, f"The fault is in {f.where}, not {exercised}.")
    return "\n".join(lines)


def _shown(token) -> str:
    return "nothing (no such id)" if token is None else show(token)


def diagnosed(finding: Finding, message: str, exercised: str | None = None) -> Diagnosed:
    """The failure to raise for a diagnosed stage: its words first, then `message` (what the test saw)."""
    words = explain_finding(finding, exercised)
    summary = words.splitlines()[-1].split(": ", 1)[0]
    cause = {**finding.cause(), "summary": summary}
    return Diagnosed(words + ("\n" + message if message else ""), cause)
