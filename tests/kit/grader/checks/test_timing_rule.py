"""The borderline rule of the speed gates (grader/checks/timing_rule.py), through `timed_call`.

A fake kit plays back scripted CPU times, so every case is exact; a seeded noise model shows that
code near its budget gets the same verdict on every rerun, where one run (or the best of two
against the budget itself) would not.
"""

from __future__ import annotations

import contextlib
import random
from types import SimpleNamespace

import pytest

from grader.budgets import Budget
from grader.checks import speed, timing_rule
from grader.checks.timing_rule import Verdict

BUDGET = Budget(2.0, "16 x the reference")


class _Playback:
    """A `bpe.kit` whose calls take the scripted CPU times, one per call."""

    def __init__(self, ratios: list[float]):
        self.times = [r * BUDGET.seconds for r in ratios]
        self.calls = 0
        self.last_call = None

    def timeout(self, seconds, cpu=None):
        return contextlib.nullcontext()

    def call(self):
        self.last_call = SimpleNamespace(cpu_s=self.times[self.calls])
        self.calls += 1
        return "done"


def _gate(ratios: list[float]) -> tuple[_Playback, dict, bool, str]:
    kit = _Playback(ratios)
    recorded = {}
    result, measured = speed.timed_call(
        SimpleNamespace(kit=kit),
        BUDGET,
        kit.call,
        "train_bpe on 1000 KB",
        "Hint: go incremental",
        gate="training",
        record=recorded.__setitem__,
    )
    assert result == "done"
    ok, text = speed.verdict(measured, BUDGET, "train_bpe on 1000 KB", "Hint: go incremental")
    return kit, recorded["figures"], ok, text


def test_a_run_clearly_within_the_budget_is_timed_once():
    kit, figures, ok, text = _gate([0.4])
    assert kit.calls == 1 and ok and figures["runs"] == 1 and figures["verdict"] == "pass"
    assert "Borderline" not in text and "Hint" not in text


def test_a_run_clearly_over_the_budget_is_timed_twice_and_fails():
    kit, figures, ok, text = _gate([1.45, 1.35, 0.1])
    assert kit.calls == 2 and not ok and figures["verdict"] == "fail"
    assert figures["ratio"] == pytest.approx(1.35) and "Hint: go incremental" in text


def test_a_run_near_the_budget_is_timed_until_clear():
    kit, figures, ok, _text = _gate([1.05, 0.98, 0.7, 5.0])
    assert kit.calls == 3 and ok and figures["verdict"] == "pass"  # 0.7 is clear: no fourth run
    assert figures["ratio"] == pytest.approx(0.7) and figures["runs"] == 3


def test_a_borderline_best_passes_and_says_so_with_its_figures():
    kit, figures, ok, text = _gate([1.08, 1.2, 1.07, 1.09, 1.12, 0.1])
    assert kit.calls == timing_rule.MOST_RUNS
    assert ok and figures["verdict"] == "borderline" and figures["ratio"] == pytest.approx(1.07)
    assert "1.07x the budget of 2.00 s" in text and "Borderline: that is the best of 5 runs" in text
    assert "Hint" not in text
    assert speed.margin(figures) == "training: 1.07x of the budget (borderline: passed, best of 5 runs)"


def test_a_best_over_the_border_fails_after_every_run():
    kit, figures, ok, text = _gate([1.2, 1.18, 1.16, 1.17, 1.19])
    assert kit.calls == 5 and not ok and figures["verdict"] == "fail" and "Hint: go incremental" in text


def test_the_grade_edge_lies_inside_the_band_measured_most_often():
    assert timing_rule.CLEAR_UNDER < 1 < timing_rule.BORDER < timing_rule.CLEAR_OVER
    for ratio in (1.0, timing_rule.BORDER):  # each edge of a verdict is timed MOST_RUNS times
        assert all(timing_rule.measure_again([ratio] * n) for n in range(1, timing_rule.MOST_RUNS))
    assert timing_rule.verdict(1.0) == Verdict.PASS
    assert timing_rule.verdict(timing_rule.BORDER) == Verdict.FAIL


def _rerun(rule, true_ratio: float, rng: random.Random) -> bool:
    """One grading under a noise model: each run takes the true time plus up to 25% (noise only
    adds time). `rule(next_ratio)` decides; True when the gate passes."""
    return rule(lambda: true_ratio * (1 + rng.uniform(0, 0.25)))


def _kit_rule(next_ratio) -> bool:
    ratios = [next_ratio()]
    while timing_rule.measure_again(ratios):
        ratios.append(next_ratio())
    return timing_rule.verdict(min(ratios)) != Verdict.FAIL


def _one_run(next_ratio) -> bool:
    return next_ratio() <= 1


@pytest.mark.parametrize("true_ratio", [0.8, 0.9, 0.95, 1.35, 1.5])
def test_reruns_of_the_same_code_agree(true_ratio):
    """Code within the budget, or clearly over the border, gets one verdict on 300 reruns."""
    rng = random.Random(20261203)
    verdicts = {_rerun(_kit_rule, true_ratio, rng) for _ in range(300)}
    assert verdicts == {true_ratio <= 1}


def test_the_noise_model_flips_a_single_run_verdict():
    """The model is noisy enough to matter: timed once, code at 0.9x its budget both passes and fails."""
    rng = random.Random(20261203)
    assert {_rerun(_one_run, 0.9, rng) for _ in range(300)} == {True, False}


def test_the_docs_state_the_rule_with_its_own_numbers():
    """README.md and INSTRUCTORS.md say the rule in words (the handout's block is generated): each
    number they give is the constant's, so a change of the rule cannot leave them behind."""
    from grader.paths import KIT_ROOT
    from grader.sandbox import process

    over = f"{round((timing_rule.BORDER - 1) * 100)}%"
    readme = " ".join((KIT_ROOT / "README.md").read_text(encoding="utf-8").split())
    instructors = " ".join((KIT_ROOT / "INSTRUCTORS.md").read_text(encoding="utf-8").split())
    assert f"up to {timing_rule.MOST_RUNS} runs" in readme and f"up to {over} over the budget" in readme
    for said in (
        f"at most 1/{timing_rule.BORDER:g} of the budget",
        f"({timing_rule.CLEAR_OVER:g} x or more)",
        f"up to {timing_rule.MOST_RUNS} runs",
        f"less than {over} over it",
        f"{timing_rule.BORDER:g} x or more fails",
        f"up to {process.STRETCH:g} x what it was first given",
    ):
        assert said in instructors, said
