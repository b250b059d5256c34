"""Failure messages for the training tests: where the merges first differ, and why.

Everything comes from the case's stored diagnostics (`golden.Diagnostics`, written by `make
fixtures`): the pairs that were tied for first place at the first different step (with counts), and
the classic mistake whose merges are exactly the student's, when there is one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.bpe_facts.golden import Diagnostics, first_difference
from grader.bpe_facts.mistakes import BY_ID, TIE_MISTAKES, Mistake
from grader.bpe_facts.render import show, show_pair
from grader.checks.diagnose import Diagnosed, Finding, case_blind_cut, unescaped_cut
from grader.i18n import N_, _
from grader.terms import Cause

if TYPE_CHECKING:
    from grader.bpe_facts.golden import Step

MAX_TIED_SHOWN = 8


def matching_mistakes(diagnostics: Diagnostics, got: list, returned: int | None = None) -> list[Mistake]:
    """The mistakes whose stored merges reproduce every merge the submission returned: `got`, or,
    when `got` is only the first of `returned` merges (the speed gate's check), none unless the
    stored merges reach that far. Agreeing up to the first difference, or a little past it, is no
    proof: another fault can make the same first merges and differ later."""
    n = len(got) if returned is None else returned
    if n > len(got):
        return []
    return [
        BY_ID[key]
        for key in BY_ID
        if len(diagnostics.mistakes.get(key, [])) >= n and diagnostics.mistakes[key][:n] == list(got)
    ]


def explain_merges(
    diagnostics: Diagnostics,
    expected: list[tuple[bytes, bytes]],
    got: list[tuple[bytes, bytes]],
    *,
    at_step: bool = True,
    no_specials: bool = False,
    returned: int | None = None,
) -> str | None:
    """None when equal; otherwise a friendly multi-line explanation of the first difference.
    The pairs tied at that step are listed unless the classic mistakes that match are not
    tie-breaks (the list would read as the cause). `at_step=False`: the two pairs only, without the
    counts at that step, when a cause proven elsewhere explains them and a list of ties would read
    as a tie-break. `no_specials`: the trainer was given special_tokens=[]. `returned`: how many
    merges the submission returned, when `got` is only the first of them."""
    k = first_difference(expected, got)
    if k is None:
        return None
    if k == 0:
        lines = [_("Your very first merge (merge #0) already differs from the expected one.")]
    else:
        lines = [
            _(
                "Your merges match the expected ones for the first {k} merge(s), then differ at merge #{k} "
                "(counting from 0)."
            ).format(k=k)
        ]
    if k >= len(got):
        return "\n".join(lines + _stopped_early(diagnostics, expected, got, no_specials))
    if k >= len(expected):
        lines.append(
            _(
                "You made {got} merges but only {expected} were expected: after that, no pair "
                "is left to merge (extra merge: {pair})."
            ).format(got=len(got), expected=len(expected), pair=show_pair(got[k]))
        )
        return "\n".join(lines)
    lines.append(_("  expected: {pair}").format(pair=show_pair(expected[k])))
    lines.append(_("  got:      {pair}").format(pair=show_pair(got[k])))
    if not at_step:
        return "\n".join(lines)
    wrong = matching_mistakes(diagnostics, got, returned)
    lines += _at_step(diagnostics.steps[k], wrong)
    lines += _your_pair(diagnostics.steps[k], tuple(got[k]), expected[:k])
    return "\n".join(lines + _mistakes_named(wrong))


def _stopped_early(diagnostics: Diagnostics, expected: list, got: list, no_specials: bool) -> list[str]:
    """Why a list of merges ends before the expected one does. No merge at all while pairs occur,
    given special_tokens=[]: the trainer found no pair, so its pieces are single characters, which
    is what splitting on an empty pattern (one joined from no special token) makes."""
    k = len(got)
    step = diagnostics.steps[k]
    lines = [
        _("You stopped after {got} merges, but {expected} were expected (next expected: {pair}).").format(
            got=len(got), expected=len(expected), pair=show_pair(expected[k])
        )
    ]
    if k == 0 and no_specials and step.top > 0:
        lines.append(
            _(
                "Your trainer found no pair to merge, though {pair} occurs {top} time(s), as if the text "
                "were cut into single characters. With special_tokens=[] nothing may cut the text: a pattern joined "
                "from no special token is empty, and an empty pattern matches at every position, so "
                "splitting on it cuts between every two characters. With no special token, do not split."
            ).format(pair=show_pair(expected[0]), top=step.top)
        )
        return lines
    lines.append(_("Keep merging until the vocabulary reaches vocab_size, or until no pair is left at all."))
    if step.top == 1:
        lines.append(
            _(
                "At that point every pair occurs only once: unlike CharBPE, train_bpe still merges "
                "pairs that occur once."
            )
        )
    return lines


def _at_step(step: Step, wrong: list[Mistake]) -> list[str]:
    """The most frequent pair at the first different step, or the pairs tied there (beside a
    mistake that is not a tie-break, a list of ties would mislead: then nothing)."""
    top = step.top
    tied = [pair for pair, n in step.counts.items() if n == top]
    if step.tied == 1:
        return [
            _(
                "At that step (after the expected merges before it), the single most frequent pair is "
                "{pair}, with {top} occurrences."
            ).format(pair=show_pair(tied[0]), top=top)
        ]
    if wrong and not TIE_MISTAKES & {m.id for m in wrong}:
        return []
    lines = [
        _(
            "At that step (after the expected merges before it), {tied} pairs are tied at {top} "
            "occurrences; the greatest one wins (bytes compared lexicographically):"
        ).format(tied=step.tied, top=top)
    ]
    lines += [f"    {show_pair(pair)}" for pair in tied[:MAX_TIED_SHOWN]]
    if step.tied > MAX_TIED_SHOWN:
        lines.append("    " + _("... and {count} more").format(count=step.tied - MAX_TIED_SHOWN))
    return lines


def _your_pair(step: Step, mine: tuple, before: list) -> list[str]:
    """How often the student's pair occurs at that step, when that says something."""
    made = {bytes([b]) for b in range(256)} | {a + b for a, b in before}
    got_count = step.counts.get(mine)
    if got_count == 0 or (got_count is None and (step.others == 0 or not set(mine) <= made)):
        return [
            _(
                "Your pair {pair} does not occur at all at this step (inside one pre-token, outside "
                "special tokens)."
            ).format(pair=show_pair(mine))
        ]
    if got_count is None and step.others == step.top:
        return []  # more pairs are tied than stored: it may be one of them, like the listed ones
    if got_count is None:
        return [
            _(
                "Your pair {pair} is not among the most frequent pairs at this step: it occurs "
                "at most {others} time(s)."
            ).format(pair=show_pair(mine), others=step.others)
        ]
    if got_count != step.top:
        return [
            _("Your pair {pair} occurs only {count} time(s) at this step.").format(
                pair=show_pair(mine), count=got_count
            )
        ]
    return []


def _mistakes_named(wrong: list[Mistake]) -> list[str]:
    if len(wrong) == 1:
        return [
            _("Likely cause: {mistake}.").format(mistake=_(wrong[0].name)),
            "  " + _(wrong[0].explanation),
        ]
    if wrong:
        return [_("Your merges are exactly what each of these mistakes gives on this corpus:")] + [
            f"  - {_(mistake.name)}: {_(mistake.explanation)}" for mistake in wrong
        ]
    return []


def explain_vocab(expected: dict[int, bytes], got: dict[int, bytes], n_specials: int = 0) -> str | None:
    """None when equal; otherwise the first differences, in words."""
    if got == expected:
        return None
    lines = []
    if len(got) != len(expected):
        lines.append(
            _("Your vocabulary has {got} entries; expected {expected}.").format(
                got=len(got), expected=len(expected)
            )
        )
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    if missing:
        lines.append(_("Missing ids (first few): {ids}").format(ids=missing[:5]))
    if extra:
        lines.append(_("Unexpected ids (first few): {ids}").format(ids=extra[:5]))
    wrong_ids = [i for i in sorted(set(expected) & set(got)) if expected[i] != got[i]]
    for i in wrong_ids[:5]:
        lines.append(
            _("  id {id}: expected {expected}, got {got}").format(
                id=i, expected=show(expected[i]), got=show(got[i])
            )
        )
    if wrong_ids:
        first = wrong_ids[0]
        if first < 256:
            lines.append(_("Ids 0-255 must be the single bytes, id == byte value (vocab[97] == b'a')."))
        elif first < 256 + n_specials:
            lines.append(
                _(
                    "After the 256 bytes come the special tokens, in the order given (each once), as UTF-8 bytes."
                )
            )
        else:
            lines.append(_("After the specials, each merge adds one id, in the order the merges were made."))
    return "\n".join(lines)


def finding_words(finding: Finding) -> tuple[str, str]:
    """(head, body): the diagnosed stage in words. The head alone is the "same cause as" summary."""
    f = finding
    if f.stage == "split_on_special_tokens":
        text, specials = f.given
        head = _("Your split_on_special_tokens cuts out the special tokens differently")
        body = _(
            "{call} should be {expected:.400}, got {got:.400}. Special tokens are cut out first, "
            "literally, longest first; fix this first."
        ).format(
            call=f"split_on_special_tokens({text!r:.160}, {specials!r})",
            expected=repr(f.expected),
            got=repr(f.got),
        )
        body += _likely_mistake(f)
    elif f.stage == "pretokenize":
        head = _("Your pretokenize splits {text:.120} differently").format(text=repr(f.given))
        body = _(
            "{call} should be {expected:.400}, got {got:.400}. Pre-tokens come before any merge: fix "
            "pretokenize first."
        ).format(call=f"pretokenize({f.given!r:.200})", expected=repr(f.expected), got=repr(f.got))
    elif f.stage == "special_missing":
        head = _("The special token {token} never got an id").format(token=repr(f.given))
        body = (
            _(
                "the vocab has no entry for {token}. A special token missing from the given vocab "
                "gets the next free id (here {id}) when the tokenizer is built; encode then "
                "turns it into that one id."
            )
            if f.where.startswith("BPETokenizer")
            else _(
                "the vocab has no entry for {token}: after the 256 bytes come the special tokens, each once."
            )
        ).format(token=repr(f.given), id=f.expected)
    elif f.stage == "special_twice":
        head = _("Your vocab holds the special token {token} twice (ids {ids})").format(
            token=repr(f.given), ids=", ".join(map(str, f.got))
        )
        body = _(
            "a special token listed more than once counts once: it takes one id, and the merges "
            "fill the ids after the special tokens."
        )
    else:
        head = _("Your vocab differs at id {id}").format(id=f.given)
        body = _(
            "expected {expected}, got {got}: The vocab is bytes 0-255 (id == byte value), then each special "
            "token once, then one id per merge."
        ).format(expected=_shown(f.expected), got=_shown(f.got))
    return head, body


SPECIALS_ANY_CASE = (
    N_("special tokens matched in any case"),
    N_(
        "Special tokens match literally, case included: with '<|endoftext|>' listed, '<|ENDOFTEXT|>' "
        "is ordinary text. Match them without IGNORECASE, and look their ids up as they are written "
        "(not case-folded)."
    ),
)


def _likely_mistake(f: Finding) -> str:
    """The classic mistake that makes exactly the split a finding shows, in words ("" when none):
    the special tokens joined into a regex without escaping, or matched in any case."""
    text, specials = f.given
    if unescaped_cut(text, specials, f.got) is not None:
        name, explanation = BY_ID["specials_unescaped"].name, BY_ID["specials_unescaped"].explanation
    elif [piece for piece, _special in case_blind_cut(text, specials)] == f.got:
        name, explanation = SPECIALS_ANY_CASE
    else:
        return ""
    return "\n" + _("Likely cause: {summary}.").format(summary=_(name)) + "\n  " + _(explanation)


def explain_finding(finding: Finding, exercised: str | None = None) -> str:
    """The diagnosed stage in words, its head first (see `finding_words`).

    `exercised` is the function the test calls; when the fault is elsewhere, the message says so,
    so that a student is never sent to fix `save` for a bug in `__init__`."""
    f = finding
    head, body = finding_words(f)
    lines = [_("{head}: {body}").format(head=head, body=body)]
    if exercised and exercised != f.where:
        lines.insert(
            0, _("The fault is in {where}, not {exercised}.").format(where=f.where, exercised=exercised)
        )
    return "\n".join(lines)


def _shown(token: bytes | None) -> str:
    return _("nothing (no such id)") if token is None else show(token)


def diagnosed(
    finding: Finding, message: str, exercised: str | None = None, *, gate: bool = False
) -> Diagnosed:
    """The failure to raise for a diagnosed stage: its words first, then `message` (what the test saw).
    `gate`: a speed gate that proved this stage the one fault of its failure (its code, given the
    right pieces, passes): it carries the cause as a gate's, charged where a test names it
    (grader/charges.py)."""
    words = explain_finding(finding, exercised)
    cause: Cause = {**finding.cause(), "summary": finding_words(finding)[0]}
    if gate:
        cause.update(one_fault=True, gate=True)
    return Diagnosed(words + ("\n" + message if message else ""), cause)
