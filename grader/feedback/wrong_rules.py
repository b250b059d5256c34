"""Classic training mistakes, each a one-knob change of the trusted trainer.

When a student's merges differ from the golden ones we retrain with each wrong rule and keep the
ones that reproduce the student's merges exactly (as far as the student got, at least a few steps
past the first difference). A match is strong evidence: it names the bug, not just the symptom.
"""
from __future__ import annotations

import dataclasses

from grader.feedback.trainer import CORRECT, Rules, train


@dataclasses.dataclass(frozen=True)
class WrongRule:
    name: str
    explanation: str
    rules: Rules


WRONG_RULES = [
    WrongRule("smaller pair wins ties",
              "When two pairs are equally frequent, the contract keeps the lexicographically GREATER "
              "pair (compare the (bytes, bytes) tuples); your code keeps the smaller one.",
              dataclasses.replace(CORRECT, tie_break="smaller_bytes")),
    WrongRule("first-seen pair wins ties",
              "When two pairs are equally frequent, your code keeps the one it met first (max() over a "
              "dict keeps the first of equals). The contract keeps the lexicographically greater "
              "(bytes, bytes) pair.",
              dataclasses.replace(CORRECT, tie_break="first_seen")),
    WrongRule("ties compared as str",
              "Your tie-break compares the tokens as decoded text; compare the raw bytes instead "
              "(b'\\xc3' and b'\\xa9' are not valid text on their own).",
              dataclasses.replace(CORRECT, tie_break="greater_str")),
    WrongRule("ties compared as GPT-2 rendered strings",
              "Your tie-break compares the printable GPT-2 renderings (e.g. 'Ġthe' for b' the'); "
              "compare the raw bytes instead: b' ' < b'a' but 'Ġ' > 'a'.",
              dataclasses.replace(CORRECT, tie_break="greater_rendered")),
    WrongRule("ties compared as ids (lowest ids win, the Hugging Face rule)",
              "Your tie-break keeps the pair with the smallest token ids; the contract compares the "
              "(bytes, bytes) tuples and keeps the greater.",
              dataclasses.replace(CORRECT, tie_break="lowest_ids")),
    WrongRule("merged across special tokens (special tokens not split out)",
              "Your trainer treats special tokens as ordinary text. Split the text on the special "
              "tokens first; no merge may use bytes of a special token or cross it.",
              dataclasses.replace(CORRECT, specials="not_split")),
    WrongRule("merged across special tokens (text on both sides glued together)",
              "Your trainer deletes the special tokens and glues the text around them together, so "
              "pairs form across them. Split on them and train on each side separately.",
              dataclasses.replace(CORRECT, specials="removed")),
    WrongRule("special tokens used as a regex without escaping",
              "You built a regex from the special tokens without regex.escape(): characters such as "
              "'|' in '<|endoftext|>' then mean 'or'. Escape each special token.",
              dataclasses.replace(CORRECT, specials="unescaped")),
    WrongRule("overlapping special tokens: shorter one matched first",
              "When one special token is a prefix of another, the longest must win "
              "('<|a|><|a|>' before '<|a|>'). Sort the special tokens longest first before splitting.",
              dataclasses.replace(CORRECT, specials="split_given_order")),
    WrongRule("merged across pre-tokens (no pre-tokenization)",
              "Your trainer counts pairs across whole lines/documents. Pre-tokenize with "
              "regex.findall(GPT2_PATTERN, piece) and count pairs only inside each pre-token.",
              dataclasses.replace(CORRECT, pretokenize="none")),
    WrongRule("`re` used instead of `regex`",
              "The standard `re` module has no \\p{L}/\\p{N}; a port of GPT2_PATTERN to `re` treats "
              "characters such as '²' or '_' differently. Use the third-party `regex` module.",
              dataclasses.replace(CORRECT, pretokenize="re")),
    WrongRule("text-mode newline translation",
              "The file was read in text mode, which turns '\\r\\n' and a lone '\\r' into '\\n'. "
              "Read it with open(path, encoding='utf-8', newline='') or read bytes and decode.",
              dataclasses.replace(CORRECT, newlines="translated")),
]


def matching_wrong_rules(text: str, vocab_size: int, specials: list[str],
                         got: list[tuple[bytes, bytes]], first_diff: int) -> list[WrongRule]:
    """The wrong rules whose training reproduces `got` (which differs at `first_diff`).

    Compared up to 50 merges past the first difference: plenty of evidence, bounded time.
    """
    n = min(len(got), first_diff + 50)
    if n <= first_diff:
        return []
    found = []
    for wrong in WRONG_RULES:
        try:
            _, merges = train(text, vocab_size, specials, wrong.rules, max_merges=n)
        except Exception:  # e.g. an unescaped special that is not a valid regex: rule cannot apply
            continue
        if merges[:n] == list(got[:n]):
            found.append(wrong)
    return found
