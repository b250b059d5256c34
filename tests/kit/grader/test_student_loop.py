"""The student's loop: the same commands in the kit and the handout, and a handout that ships stubs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from grader import rubric
from grader.errors import StarterError
from grader.paths import KIT_ROOT
from grader.release import starter_check
from grader.release.handout import build
from grader.release.rubric_filter import visible_only

KIT = KIT_ROOT
STUDENT_MAKEFILE = KIT / "grader/release/templates/student.Makefile"


def _package(parent: Path) -> Path:
    (parent / "bpe/__pycache__").mkdir(parents=True)
    (parent / "bpe/__init__.py").write_text("")
    (parent / "bpe/core.py").write_text("X = 1\n")
    (parent / "bpe/__pycache__/core.cpython-311.pyc").write_bytes(b"junk")
    return parent


@pytest.mark.parametrize("tree", ["kit", "handout"])
def test_make_submission_zips_the_bpe_package_in_both_trees(tree, tmp_path):
    sub = _package(tmp_path / "mine")
    dest = tmp_path / "submission.zip"
    if tree == "kit":
        argv = ["make", "-C", str(KIT), "-o", ".venv/.ok"]
    else:
        argv = ["make", "-f", str(STUDENT_MAKEFILE), "-C", str(KIT)]
    argv += ["submission", f"PY={sys.executable}", f"SUBMISSION={sub}", f"ZIP={dest}"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(zipfile.ZipFile(dest).namelist()) == ["bpe/__init__.py", "bpe/core.py"]
    assert "upload it to Gradescope" in r.stdout


def test_zip_of_a_folder_without_bpe_says_so_in_one_line(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "grader", "zip", str(tmp_path), "--out", str(tmp_path / "s.zip")],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no bpe/ package" in r.stderr
    assert not (tmp_path / "s.zip").exists()


def test_the_handout_rubric_says_how_many_points_it_leaves_out(tmp_path):
    full = rubric.load(KIT / "grader/rubric.toml")
    hidden = sum(e.points for e in full if e.visibility != "visible")
    assert hidden > 0
    copy = tmp_path / "rubric.toml"
    copy.write_text(visible_only((KIT / "grader/rubric.toml").read_text()))
    assert rubric.withheld_points(copy) == hidden
    assert sum(e.points for e in rubric.load(copy)) + hidden == sum(e.points for e in full)
    assert rubric.withheld_points(KIT / "grader/rubric.toml") == 0


def _git_kit(root: Path) -> Path:
    files = {
        "starter/bpe/__init__.py": "",
        "starter/bpe/core.py": 'def merge(ids, pair, new_id):\n    """Doc."""\n    raise NotImplementedError("merge")\n',
        "grader/__init__.py": "",
        "assignment/README.md": "# The assignment\n",
        "pyproject.toml": "[project]\nname = 'x'\ndependencies = []\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git = ["git", "-C", str(root), "-c", "user.name=k", "-c", "user.email=k@k"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "kit"], check=True)
    return root


FILLED = "def merge(ids, pair, new_id):\n    return [new_id if i == pair[0] else i for i in ids]\n"


def test_the_handout_refuses_a_starter_that_differs_from_the_committed_one(tmp_path):
    kit = _git_kit(tmp_path / "kit")
    files = build(kit, tmp_path / "clean.zip")
    assert files["starter/bpe/core.py"] == (kit / "starter/bpe/core.py").read_bytes()
    (kit / "starter/bpe/core.py").write_text(FILLED)
    with pytest.raises(StarterError, match=r"differs from the committed starter \(starter/bpe/core.py\)"):
        build(kit, tmp_path / "edited.zip")
    (kit / "starter/bpe/core.py").write_text(files["starter/bpe/core.py"].decode())
    (kit / "starter/bpe/extra.py").write_text("x = 1\n")
    with pytest.raises(StarterError, match=r"starter/bpe/extra\.py"):
        build(kit, tmp_path / "new-file.zip")
    assert not (tmp_path / "edited.zip").exists() and not (tmp_path / "new-file.zip").exists()


def test_the_handout_refuses_a_committed_starter_that_is_filled_in(tmp_path):
    kit = _git_kit(tmp_path / "kit")
    (kit / "starter/bpe/core.py").write_text(FILLED)
    subprocess.run(
        ["git", "-C", str(kit), "-c", "user.name=k", "-c", "user.email=k@k", "commit", "-qam", "x"]
    )
    with pytest.raises(StarterError, match=r"filled in.*starter/bpe/core.py: merge"):
        build(kit, tmp_path / "filled.zip")
    assert not (tmp_path / "filled.zip").exists()


def test_the_command_refuses_a_filled_in_starter_in_one_line(tmp_path):
    kit = _git_kit(tmp_path / "kit")
    (kit / "starter/bpe/core.py").write_text(FILLED)
    code = (
        "import sys; from pathlib import Path; from grader.release import __main__ as m; "
        f"m.KIT = Path({str(kit)!r}); sys.exit(m.main(['handout', '--out', {str(tmp_path / 'h.zip')!r}]))"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=KIT, capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error: starter/ differs") and r.stderr.count("\n") == 1


def test_the_real_starter_is_all_stubs_and_the_solution_is_not():
    starter = {p.relative_to(KIT).as_posix(): p.read_bytes() for p in (KIT / "starter/bpe").glob("*.py")}
    assert starter_check.filled_in(starter) == []
    solution = {f"starter/bpe/{p.name}": p.read_bytes() for p in (KIT / "solution/bpe").glob("*.py")}
    found = starter_check.filled_in(solution)
    assert "starter/bpe/training.py: train_bpe" in found and "starter/bpe/char_bpe.py: merge" in found
    assert not any(given in f for f in found for given in starter_check.GIVEN)


# --- the terminal report ---------------------------------------------------------------------

from grader import report  # noqa: E402
from grader.budgets import Budget  # noqa: E402
from grader.checks import speed  # noqa: E402
from grader.scoring import Scored  # noqa: E402

FULL_RUBRIC = rubric.load(KIT / "grader/rubric.toml")


def _scored() -> list[Scored]:
    """Every rubric entry: passed, but one failure with long feedback and two measured gates."""
    out = []
    for e in FULL_RUBRIC:
        s = Scored(e, "passed", e.points, "", "", 0.25)
        if e.number == "2.10":
            s = Scored(
                e, "failed", 0, "train_bpe stopped early " * 12 + "\n  at merge #3: " + "x" * 20, "", 1.5
            )
        if e.number == "E.1":
            s.figures = speed.figures("training", 0.92, Budget(1.37, "6 x the reference"))
        if e.number == "E.3":
            s.figures = speed.memory_figures("streaming memory", 2_000_000, 12_000_000)
        out.append(s)
    return out


def _names_in_table(text: str) -> list[str]:
    """Each row's name, its first line and the lines under it in the name column put together."""
    names = []
    for line in text.split("\n\n")[0].splitlines()[2:]:
        row = re.match(r"(\S+) +(.*?) +\d+/\d+  ", line)
        if row:
            names.append(row.group(2))
        else:
            names[-1] += " " + line.strip()
    return names


@pytest.mark.parametrize("width", [80, 100])
def test_the_terminal_report_fits_the_width(width):
    text = report.terminal(_scored(), note="Reports: results/results.json, results/junit.xml", width=width)
    too_long = [line for line in text.splitlines() if len(line) > width]
    assert too_long == []
    rows = [line for line in text.splitlines() if line.split(" ", 1)[0] in {e.number for e in FULL_RUBRIC}]
    assert len(rows) == len(FULL_RUBRIC) and max(len(r) for r in rows) == width
    assert "..." not in text  # nothing is cut: every name is whole, wrapped in its column
    assert _names_in_table(text) == [e.name for e in FULL_RUBRIC]
    longest = max(FULL_RUBRIC, key=lambda e: len(e.name))
    assert (longest.name in text) == (width >= 42 + len(longest.name))  # on one line when it fits
    assert "train_bpe stopped early train_bpe" in text  # wrapped, not cut


def _stubbed() -> list[Scored]:
    """Parts 1 and 2 stopped at three stubs, one test that printed, the rest passed."""
    out = []
    for e in FULL_RUBRIC:
        s = Scored(e, "passed", e.points, "", "", 0.01)
        if e.part in (1, 2):
            fn = "merge" if e.number == "1.1" else "CharBPE.train" if e.part == 1 else "train_bpe"
            printed = "hello from train_bpe\n" if e.number == "2.9" else ""
            s = Scored(e, "not implemented", 0, f"Not implemented yet: {fn} is yours to write", printed, 0.01)
        out.append(s)
    return out


def test_tests_stopped_by_one_stub_share_one_line():
    text = report.terminal(_stubbed(), width=100)
    part2 = [e.number for e in FULL_RUBRIC if e.part == 2]
    expected = [
        "--- Not implemented yet: merge is yours to write: test 1.1",
        "--- Not implemented yet: CharBPE.train is yours to write: tests 1.2-1.7",
        f"--- Not implemented yet: train_bpe is yours to write: tests {part2[0]}-2.8, 2.10-{part2[-1]}",
    ]
    block = text.split("\n\n")[1].splitlines()
    assert block == expected
    assert "--- 2.9 " in text and "hello from train_bpe" in text  # what it printed is kept, with it


def test_a_full_pass_says_what_to_do_next():
    everything = [Scored(e, "passed", e.points, "", "", 0.01) for e in FULL_RUBRIC]
    full = report.Scope(total_points=100)
    assert "`make submission`" in report.next_step(everything, full, "kit")
    assert report.next_step(_scored(), full, "kit") is None  # one test failed
    assert report.next_step(everything, report.Scope("the tests of Part 2", 100), "kit") is None
    assert report.next_step(everything, full, "cs336") is None  # a CS336 repository is not zipped


def test_the_width_comes_from_the_terminal_and_never_goes_below_80(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert report.terminal_width() == 100
    monkeypatch.setenv("COLUMNS", "40")
    assert report.terminal_width() == report.MIN_WIDTH == 80


def test_the_terminal_shows_each_gates_margin():
    text = report.terminal(_scored(), width=100)
    assert "  E.1   training: 0.67x of the budget" in text
    assert "  E.3   streaming memory: 0.17x of the limit" in text


def test_the_total_says_what_is_withheld_and_what_is_partial():
    scored = [s for s in _scored() if s.entry.visibility == "visible"]
    here = sum(s.score for s in scored)
    withheld = sum(e.points for e in FULL_RUBRIC) - sum(s.entry.points for s in scored)
    text = report.terminal(scored, width=100, scope=report.Scope(total_points=100, withheld=withheld))
    assert (
        f"Total: {here:g} / {here + 2:g} here; {withheld:g} more points from hidden tests are graded on Gradescope"
        in text
    )
    part2 = [s for s in scored if s.entry.part == 2]
    text = report.terminal(part2, width=80, scope=report.Scope("the tests of Part 2", 100, withheld))
    assert "Partial grade: only the tests of Part 2 ran" in text and "hidden" not in text
    full = report.terminal(_scored(), width=80, scope=report.Scope(total_points=100))
    assert "Partial" not in full and "Gradescope" not in full


def test_results_json_carries_the_figures_and_the_scope():
    scored = _scored()
    results = report.results_json(
        scored, execution_time=1.0, isolation="uid", scope=report.Scope("the tests of Part 2", 100, 7)
    )
    by_number = {t["number"]: t for t in results["tests"]}
    assert by_number["E.1"]["extra_data"]["figures"]["ratio"] == pytest.approx(0.92 / 1.37, abs=1e-4)
    assert "extra_data" not in by_number["1.1"]
    assert results["extra_data"]["partial"] == "the tests of Part 2"
    assert results["extra_data"]["withheld_points"] == 7
    json.dumps(results)  # Gradescope reads it as JSON


def test_a_property_test_failure_shows_the_shrunk_input():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from grader.suite.outcome import classify

    @settings(derandomize=True, database=None, print_blob=False)
    @given(st.text())
    def prop(text):
        if "<" in text:
            raise KeyError(text[1:])

    with pytest.raises(KeyError) as info:
        prop()
    status, text = classify(info)
    assert status == "failed"
    assert text.endswith("The input that caused it (the smallest that hypothesis found):\n    text='<'")
    assert "prop" not in text.split("KeyError")[-1]  # the test's name stays out (hidden tests)

    with pytest.raises(ValueError) as plain:
        raise ValueError("not a property test")
    assert "hypothesis" not in classify(plain)[1]


# --- a partial grade --------------------------------------------------------------------------


def test_part_selects_by_rubric_part():
    from grader.api import GraderError, select_part

    assert {e.part for e in select_part(FULL_RUBRIC, "2")} == {2}
    assert select_part(FULL_RUBRIC, "E") == select_part(FULL_RUBRIC, "efficiency")
    assert len(select_part(FULL_RUBRIC, "1")) == sum(e.part == 1 for e in FULL_RUBRIC)
    with pytest.raises(GraderError, match=r"--part '7': no graded test belongs to it"):
        select_part(FULL_RUBRIC, "7")


def test_make_grade_part_1_grades_part_1_only_and_says_it_is_partial():
    out = Path(tempfile.mkdtemp(prefix="g", dir="/tmp")) / "results"  # a short path: it is printed
    r = subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(KIT),
            "-o",
            ".venv/.ok",
            "grade",
            f"PY={sys.executable}",
            "PART=1",
            f"OUT={out}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    results = json.loads((out / "results.json").read_text())
    assert {t["number"] for t in results["tests"]} == {e.number for e in FULL_RUBRIC if e.part == 1}
    assert results["extra_data"]["partial"] == "the tests of Part 1"
    assert "Partial grade: only the tests of Part 1 ran" in r.stdout
    assert [line for line in r.stdout.splitlines() if len(line) > 80] == []
    shutil.rmtree(out.parent)


def test_the_bench_splits_a_grade_into_start_up_parts_and_slowest_tests(tmp_path):
    from bench.grading import where_the_time_goes

    scored = _scored()
    report.write_junit(scored, tmp_path, execution_time=60.0)
    split = where_the_time_goes(tmp_path / "junit.xml", wall_s=60.0)
    tests_s = sum(s.duration for s in scored)
    assert split["tests_s"] == pytest.approx(tests_s, abs=0.01)
    assert split["startup_s"] == pytest.approx(60.0 - tests_s, abs=0.01)
    assert split["by_part"]["part 2"] == pytest.approx(sum(s.duration for s in scored if s.entry.part == 2))
    assert split["slowest"][0] == {
        "test": "2.10 " + next(e.name for e in FULL_RUBRIC if e.number == "2.10"),
        "seconds": 1.5,
    }
    assert where_the_time_goes(tmp_path / "missing.xml", 1.0) is None


# --- the handout's own rules ------------------------------------------------------------------


def test_the_rule_table_names_only_visible_rubric_tests(tmp_path):
    from assignment import build

    tests = build.load_rubric()
    table = build.render_rules(tests)
    for t in tests:
        if build.is_hidden(t):
            assert f"{t['number']} {t['name']}" not in table
    assert "| Part 2 | 2.7 train_bpe: \\r and \\r\\n are kept as they are |" in table
    hidden = next(t["number"] for t in tests if build.is_hidden(t))
    for bad in [hidden, "9.99"]:
        rules = tmp_path / f"rules-{bad}.toml"
        rules.write_text(f'[[rule]]\nrule = "r"\nrule_zh = "规则"\nparts = [2]\ntests = ["{bad}"]\n')
        with pytest.raises(build.RubricError, match=f"'{re.escape(bad)}' is not a visible test"):
            build.render_rules(tests, rules)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_committed_rule_table_is_the_generated_one(lang):
    from assignment import build

    text = build.translated(build.HANDOUT, lang).read_text(encoding="utf-8")
    committed = build.current_block(text, build.RULES_BEGIN, build.RULES_END)
    assert committed == build.render_rules(build.load_rubric(), lang=lang)
