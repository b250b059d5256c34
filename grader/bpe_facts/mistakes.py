"""Classic training mistakes, by name and in words: what "Likely cause: ..." says.

Each mistake has a short id. For every training case, `make fixtures` stores the merges that the
mistake produces on the case's corpus (data/fixtures/*/train/<case>/mistakes/<id>.txt); when a
student's merges are exactly those, the failure message names the mistake, not just the symptom.
"""

from __future__ import annotations

import dataclasses

from grader.i18n import N_


@dataclasses.dataclass(frozen=True)
class Mistake:
    id: str
    name: str  # English; translated where shown (grader/i18n.py)
    explanation: str


MISTAKES = [
    Mistake(
        "tie_smaller_pair",
        N_("smaller pair wins ties"),
        N_(
            "When two pairs are equally frequent, the contract keeps the lexicographically GREATER "
            "pair (compare the (bytes, bytes) tuples); your code keeps the smaller one."
        ),
    ),
    Mistake(
        "tie_first_seen",
        N_("first-seen pair wins ties"),
        N_(
            "When two pairs are equally frequent, your code keeps the one it met first (max() over a "
            "dict keeps the first of equals). The contract keeps the lexicographically greater "
            "(bytes, bytes) pair."
        ),
    ),
    Mistake(
        "tie_as_str",
        N_("ties compared as str"),
        N_(
            "Your tie-break compares the tokens as decoded text; compare the raw bytes instead "
            "(b'\\xc3' and b'\\xa9' are not valid text on their own)."
        ),
    ),
    Mistake(
        "tie_as_rendered",
        N_("ties compared as GPT-2 rendered strings"),
        N_(
            "Your tie-break compares the printable GPT-2 renderings (e.g. 'Ġthe' for b' the'); "
            "compare the raw bytes instead: b' ' < b'a' but 'Ġ' > 'a'."
        ),
    ),
    Mistake(
        "tie_lowest_ids",
        N_("ties compared as ids (lowest ids win, the Hugging Face rule)"),
        N_(
            "Your tie-break keeps the pair with the smallest token ids; the contract compares the "
            "(bytes, bytes) tuples and keeps the greater."
        ),
    ),
    Mistake(
        "specials_not_split",
        N_("merged across special tokens (special tokens not split out)"),
        N_(
            "Your trainer treats special tokens as ordinary text. Split the text on the special "
            "tokens first; no merge may use bytes of a special token or cross it."
        ),
    ),
    Mistake(
        "specials_removed",
        N_("merged across special tokens (text on both sides glued together)"),
        N_(
            "Your trainer deletes the special tokens and glues the text around them together, so "
            "pairs form across them. Split on them and train on each side separately."
        ),
    ),
    Mistake(
        "specials_unescaped",
        N_("special tokens used as a regex without escaping"),
        N_(
            "You built a regex from the special tokens without regex.escape(): characters such as "
            "'|' in '<|endoftext|>' then mean 'or'. Escape each special token."
        ),
    ),
    Mistake(
        "specials_given_order",
        N_("overlapping special tokens: shorter one matched first"),
        N_(
            "When one special token is a prefix of another, the longest must win "
            "('<|a|><|a|>' before '<|a|>'). Sort the special tokens longest first before splitting."
        ),
    ),
    Mistake(
        "no_pretokenize",
        N_("merged across pre-tokens (no pre-tokenization)"),
        N_(
            "Your trainer counts pairs across whole lines/documents. Pre-tokenize with "
            "regex.findall(GPT2_PATTERN, piece) and count pairs only inside each pre-token."
        ),
    ),
    Mistake(
        "re_module",
        N_("`re` used instead of `regex`"),
        N_(
            "The standard `re` module has no \\p{L}/\\p{N}; a port of GPT2_PATTERN to `re` treats "
            "characters such as '²' or '_' differently. Use the third-party `regex` module."
        ),
    ),
    Mistake(
        "newlines_translated",
        N_("text-mode newline translation"),
        N_(
            "The file was read in text mode, which turns '\\r\\n' and a lone '\\r' into '\\n'. "
            "Read it with open(path, encoding='utf-8', newline='') or read bytes and decode."
        ),
    ),
    Mistake(
        "index_missing_right",
        N_("words not listed under the new pair on the right of a merge (incremental index)"),
        N_(
            "Your trainer keeps, for each pair, the words that hold it, and merges a pair only in "
            "those words; after a merge it does not list the word under the new pair on the right "
            "(new token, right neighbour). That pair is later merged in some words only, so counts "
            "go wrong. List each word under both new pairs a merge creates."
        ),
    ),
]
BY_ID = {m.id: m for m in MISTAKES}
TIE_MISTAKES = frozenset(m.id for m in MISTAKES if m.id.startswith("tie_"))  # ways of breaking ties
