"""Recording, at fixture time, what the training failure messages need (instructor-only).

The messages must read the same in the handout, where no trainer is shipped. So `make fixtures`
replays the expected merges with the trusted trainer once and stores, for every step, the most
frequent pairs (`golden.Step`), and the merges each classic mistake produces (`mistakes/<id>.txt`).
"""

from __future__ import annotations

from grader.bpe_facts.golden import Step, first_difference
from grader.oracles.trainer import CORRECT, Replay, train
from grader.oracles.wrong_rules import WRONG_RULES

LISTED = 10  # most frequent pairs stored per step (a message shows at most 8 tied pairs)


def mistakes(
    text: str, vocab_size: int, specials: list[str], expected: list, max_merges: int | None = None
) -> dict[str, list]:
    """id -> merges (the first `max_merges` of them, when given), for each mistake that changes the
    merges (one that raises or changes nothing is left out)."""
    found = {}
    for wrong in WRONG_RULES:
        try:
            _, merges = train(text, vocab_size, specials, wrong.rules, max_merges=max_merges)
        except Exception:  # e.g. an unescaped special token that is not a valid regex
            continue
        if merges != expected:
            found[wrong.mistake.id] = merges
    return found


def steps(text: str, specials: list[str], expected: list, wrong: dict[str, list]) -> list[Step]:
    """One Step per expected merge; a mistake's pick is listed at the step where it leaves `expected`."""
    asked: dict[int, list] = {}
    for merges in wrong.values():
        k = first_difference(expected, merges)
        if k is not None and k < len(expected) and k < len(merges):
            asked.setdefault(k, []).append(merges[k])
    replay = Replay(text, specials, CORRECT)
    out = []
    for k, pair in enumerate(expected):
        counts = replay.counts()
        ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        top = ranked[0][1] if ranked else 0
        listed = dict(ranked[:LISTED])
        for extra in asked.get(k, []):
            listed.setdefault(tuple(extra), counts.get(tuple(extra), 0))
        others = ranked[LISTED][1] if len(ranked) > LISTED else 0
        out.append(Step(top, sum(1 for _, n in ranked if n == top), others, listed))
        replay.apply(pair)
    return out
