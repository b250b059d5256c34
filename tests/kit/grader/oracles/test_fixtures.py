"""The golden fixtures are reproducible, and two independent implementations agree on them.

`python -m grader.oracles.fixtures` must regenerate data/fixtures/{public,hidden} byte for byte, both with
the trusted trainer/encoder of grader.checks (the default engine) and with the reference solution.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import budgets, calibration
from grader.bpe_facts import golden
from grader.oracles import fixtures
from grader.paths import CALIBRATION_FILE
from grader.paths import KIT_ROOT as KIT

COMMITTED = KIT / "data" / "fixtures"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _assert_same_tree(generated: Path, committed: Path) -> None:
    for visibility in ("public", "hidden"):
        new, old = _tree(generated / visibility), _tree(committed / visibility)
        assert sorted(new) == sorted(old), f"{visibility}: files differ: {sorted(set(new) ^ set(old))}"
        changed = [name for name in new if new[name] != old[name]]
        assert not changed, f"{visibility}: regenerated files differ from the committed ones: {changed}"


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["trusted", "solution"])
def test_fixtures_regenerate_byte_for_byte(engine, tmp_path):
    out = tmp_path / "fixtures"
    assert fixtures.main(["--out", str(out), "--engine", engine, "--no-calibration"]) == 0
    _assert_same_tree(out, COMMITTED)


def test_generation_replaces_only_its_own_folders(tmp_path):
    out = tmp_path / "fixtures"
    (out / "public").mkdir(parents=True)
    (out / "public" / "stale.txt").write_text("old")
    (out / "calibration.json").write_text("{}")
    fixtures.generate(out, fixtures.TrustedEngine())
    assert not (out / "public" / "stale.txt").exists()
    assert (out / "calibration.json").read_text() == "{}"


def test_every_case_loads_and_is_well_formed():
    for visibility in ("public", "hidden"):
        root = golden.root(visibility)
        for case_dir in sorted((root / "train").iterdir()):
            case = golden.TrainCase(root, case_dir.name)
            n_specials = len(dict.fromkeys(case.special_tokens))
            assert len(case.vocab) == 256 + n_specials + len(case.merges)
            assert sorted(case.vocab) == list(range(len(case.vocab)))
            assert len(set(case.vocab.values())) == len(case.vocab), f"{case.name}: duplicate tokens"
            assert case.stops_early == (len(case.vocab) < case.vocab_size)
        for enc_dir in sorted((root / "encode").iterdir()):
            assert golden.EncodeCase(root, enc_dir.name).texts


def test_stored_cases_come_shortest_first_so_the_first_failure_is_the_smallest():
    rows = golden.char_bpe_cases(golden.root("public"))
    assert len(rows) >= 100 and {r["num_merges"] for r in rows} == set(range(7))
    assert [len(r["text"]) for r in rows] == sorted(len(r["text"]) for r in rows)
    texts = [t for t, _ in golden.EncodeCase(golden.root("public"), "generated").texts]
    assert len(texts) >= 100 and [len(t) for t in texts] == sorted(map(len, texts))
    assert any(ord(c) > 0xFFFF for t in texts for c in t) and any("<|endoftext|>" in t for t in texts)


def test_the_speed_gates_data_matches_the_calibrated_workloads():
    """The gates check their answers against these files: they must describe the very same workloads."""
    case = golden.SpeedTrainCase(golden.root("public"))
    assert case.corpus == budgets.TRAIN_CORPUS and case.vocab_size == budgets.TRAIN_VOCAB_SIZE
    assert case.special_tokens == ["<|endoftext|>"] and len(case.merges) == len(case.diagnostics().steps) > 0
    for gate, spec in (("encode", budgets.ENCODE_TEXT), ("stream", budgets.STREAM_FILE)):
        text = (golden.root("public") / "speed" / gate / "ids.txt").read_text(encoding="ascii")
        assert f"generate_text{spec!r}" in text.splitlines()[0]
        assert golden.IdDigest(golden.root("public") / "speed" / gate / "ids.txt").count > 0


def test_every_training_case_has_its_failure_message_data():
    for visibility in ("public", "hidden"):
        for case_dir in sorted((golden.root(visibility) / "train").iterdir()):
            case = golden.TrainCase(golden.root(visibility), case_dir.name)
            diagnostics = case.diagnostics()
            assert len(diagnostics.steps) == len(case.merges), case.name
            for key, merges in diagnostics.mistakes.items():
                assert merges != case.merges, (case.name, key)


def test_only_the_early_stop_case_stops_early():
    """Every other case must reach vocab_size, so that it tests what its name says for all merges."""
    stopping = [
        d.name
        for v in ("public", "hidden")
        for d in sorted((golden.root(v) / "train").iterdir())
        if golden.TrainCase(golden.root(v), d.name).stops_early
    ]
    assert stopping == ["early_stop"]


def test_corpora_are_small_and_hidden_ones_stay_hidden():
    for path in COMMITTED.rglob("corpora/*.txt"):
        assert path.stat().st_size <= 48_000, f"{path} is too big for a committed fixture"
    public_names = {p.name for p in (COMMITTED / "public").rglob("*")}
    hidden_names = {p.name for p in (COMMITTED / "hidden" / "corpora").iterdir()}
    assert not public_names & hidden_names


def test_calibration_file_holds_positive_ratios():
    data = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
    for gate in budgets.FACTORS:
        assert data[gate]["reference_over_yardstick"] > 0
    assert calibration.load_ratios().keys() == budgets.FACTORS.keys()
