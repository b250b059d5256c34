"""Each classic mistake of grader.bpe_facts.mistakes as a one-knob change of the trusted trainer.

Instructor-only (never in the handout): `make fixtures` trains with every wrong rule and stores the
resulting merges, which the failure messages then match against a student's merges.
"""

from __future__ import annotations

import dataclasses

from grader.bpe_facts.mistakes import BY_ID, Mistake
from grader.oracles.trainer import CORRECT, Rules

_KNOBS = {
    "tie_smaller_pair": {"tie_break": "smaller_bytes"},
    "tie_first_seen": {"tie_break": "first_seen"},
    "tie_as_str": {"tie_break": "greater_str"},
    "tie_as_rendered": {"tie_break": "greater_rendered"},
    "tie_lowest_ids": {"tie_break": "lowest_ids"},
    "specials_not_split": {"specials": "not_split"},
    "specials_removed": {"specials": "removed"},
    "specials_unescaped": {"specials": "unescaped"},
    "specials_given_order": {"specials": "split_given_order"},
    "no_pretokenize": {"pretokenize": "none"},
    "re_module": {"pretokenize": "re"},
    "newlines_translated": {"newlines": "translated"},
    "index_missing_right": {"index": "missing_right"},
}


@dataclasses.dataclass(frozen=True)
class WrongRule:
    mistake: Mistake
    rules: Rules

    @property
    def name(self) -> str:
        return self.mistake.name


WRONG_RULES = [WrongRule(BY_ID[key], dataclasses.replace(CORRECT, **knobs)) for key, knobs in _KNOBS.items()]
