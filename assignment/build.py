"""Write the handout's generated tables: `python -m assignment.build`.

Two tables are never edited by hand, so the handout cannot promise what the grader does not do:
- the points table in assignment/README.md, from grader/rubric.toml (hidden tests, i.e. those
  marked hidden or living in test_hidden_*.py files, are counted, never named: "hidden tests:
  N points" per part);
- the speed and memory limits in assignment/part4_efficiency.md, from grader/calibration.py and
  the memory gate of tests/graded/test_efficiency.py;
- the table of this kit's own rules in assignment/README.md, from assignment/kit_rules.toml, with
  the tests that check each rule named from the rubric (only visible tests may be cited);
- the time limits of every test in assignment/README.md, from grader/calibration.py and
  grader/sandbox/process.py.
Each sits between two markers. `--check` only compares (exit 1 if a committed table is out of
date); the kit's tests run the same comparison.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUBRIC = ROOT / "grader" / "rubric.toml"
HANDOUT = ROOT / "assignment" / "README.md"
BEGIN = "<!-- rubric:begin -->"
END = "<!-- rubric:end -->"
EFFICIENCY = ROOT / "assignment" / "part4_efficiency.md"
BUDGETS_BEGIN = "<!-- budgets:begin -->"
BUDGETS_END = "<!-- budgets:end -->"
SPEED_TESTS = ROOT / "tests" / "graded" / "test_efficiency.py"
KIT_RULES = ROOT / "assignment" / "kit_rules.toml"
RULES_BEGIN = "<!-- kit-rules:begin -->"
RULES_END = "<!-- kit-rules:end -->"
LIMITS_BEGIN = "<!-- time-limits:begin -->"
LIMITS_END = "<!-- time-limits:end -->"
PROCESS = ROOT / "grader" / "sandbox" / "process.py"

PARTS = {
    1: "Part 1: character-level BPE",
    2: "Part 2: byte-level training",
    3: "Part 3: the tokenizer",
    "efficiency": "Part 4: efficiency",
}
SHOWN_LATER = {
    "after_due_date": "result shown after the due date",
    "after_published": "result shown when grades are published",
}
VISIBILITIES = {"visible", "hidden", *SHOWN_LATER}


class RubricError(ValueError):
    """The rubric cannot be turned into a table; the message names the file and the entry."""


def load_rubric(path: Path = RUBRIC) -> list[dict]:
    """The [[test]] entries of the rubric, checked for the fields the table needs."""
    try:
        tests = tomllib.loads(path.read_text(encoding="utf-8")).get("test", [])
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RubricError(f"{path}: {error}") from None
    for i, test in enumerate(tests, start=1):
        where = f"{path}: [[test]] number {i} ({test.get('id', 'no id')})"
        for key in ("number", "name", "part", "points"):
            if key not in test:
                raise RubricError(f"{where}: missing {key!r}")
        if test["part"] not in PARTS:
            raise RubricError(f"{where}: part must be one of {list(PARTS)}, not {test['part']!r}")
        if test.get("visibility", "visible") not in VISIBILITIES:
            raise RubricError(f"{where}: unknown visibility {test['visibility']!r}")
        points = test["points"]
        if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
            raise RubricError(f"{where}: points must be a number >= 0, not {points!r}")
    return tests


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _number_key(number: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in str(number).split("."))


def is_hidden(test: dict) -> bool:
    """Hidden from students: marked so, or living in a tests/graded/test_hidden_*.py file."""
    return test.get("visibility", "visible") == "hidden" or test.get("id", "").split("/")[-1].startswith(
        "test_hidden_"
    )


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def render_table(tests: list[dict]) -> str:
    """The Markdown table: visible tests by part in number order, hidden ones as a sum."""
    lines = ["| Test | What it checks | Points |", "| --- | --- | ---: |"]
    for part, title in PARTS.items():
        mine = [t for t in tests if t["part"] == part]
        if not mine:
            continue
        lines.append(f"| **{title}** | | **{_points(sum(t['points'] for t in mine))}** |")
        for test in sorted((t for t in mine if not is_hidden(t)), key=lambda t: _number_key(t["number"])):
            note = SHOWN_LATER.get(test.get("visibility", "visible"))
            name = f"{test['name']} ({note})" if note else test["name"]
            lines.append(f"| {_cell(test['number'])} | {_cell(name)} | {_points(test['points'])} |")
        hidden = sum(t["points"] for t in mine if is_hidden(t))
        if hidden:
            lines.append(f"| | hidden tests: {_points(hidden)} points | {_points(hidden)} |")
    lines.append(f"| | **Total** | **{_points(sum(t['points'] for t in tests))}** |")
    return "\n".join(lines)


def render_points(tests: list[dict]) -> str:
    """The points table, then what one fault costs at most (grader/charges.py), stated once here."""
    cap = _module_constant(ROOT / "grader" / "charges.py", "CAP")
    return (
        render_table(tests) + f"\n\nOne fault costs at most {_points(cap)} points in all, however many tests "
        'it fails, when the grader proves it alone explains each failure (see "One fault, several tests").'
    )


def render_rules(tests: list[dict], path: Path = KIT_RULES) -> str:
    """The kit's own rules, each with the visible tests that check it (number and rubric name)."""
    try:
        rules = tomllib.loads(path.read_text(encoding="utf-8")).get("rule", [])
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RubricError(f"{path}: {error}") from None
    visible = {str(t["number"]): t for t in tests if not is_hidden(t)}
    lines = ["| Rule | Stated in | Checked by |", "| --- | --- | --- |"]
    for i, rule in enumerate(rules, start=1):
        where = f"{path}: [[rule]] number {i}"
        if not all(isinstance(rule.get(k), str) for k in ("rule", "where")) or not isinstance(
            rule.get("tests"), list
        ):
            raise RubricError(f"{where}: needs rule and where (strings) and tests (a list)")
        unknown = [n for n in rule["tests"] if str(n) not in visible]
        if unknown:
            raise RubricError(f"{where}: {unknown[0]!r} is not a visible test of grader/rubric.toml")
        checked = "; ".join(f"{n} {visible[str(n)]['name']}" for n in rule["tests"]) or "no graded test"
        lines.append(f"| {_cell(rule['rule'])} | {_cell(rule['where'])} | {_cell(checked)} |")
    return "\n".join(lines)


def _module_constant(path: Path, name: str):
    """A literal assigned at the top level of a Python file, read without importing it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError) as error:
        raise RubricError(f"{path}: {error}") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise RubricError(f"{path}: no top-level constant {name}")


def render_budgets() -> str:
    """The limits table of Part 4, in the words a student needs: workload and ratio."""
    from grader import calibration

    train_kind, train_bytes, _ = calibration.TRAIN_CORPUS
    encode_kind, encode_bytes, _ = calibration.ENCODE_TEXT
    case = ROOT / "data" / "fixtures" / "public" / "train" / calibration.ENCODE_TRAIN_CASE / "case.json"
    try:
        encode_vocab = json.loads(case.read_text(encoding="utf-8"))["vocab_size"]
    except (OSError, ValueError, KeyError) as error:
        raise RubricError(f"{case}: {error}") from None
    stream_kind, stream_bytes, _ = calibration.STREAM_FILE
    per_byte = _module_constant(SPEED_TESTS, "MEMORY_LIMIT_PER_FILE_BYTE")
    sample = _module_constant(SPEED_TESTS, "SAMPLE_CHARS")
    pace = _module_constant(SPEED_TESTS, "PACE_FACTOR")
    kinds = {"mixed": "English and Chinese stories", "en": "English stories", "zh": "Chinese stories"}
    eot = "<\\|endoftext\\|>"  # `|` must be escaped inside a Markdown table
    rows = [
        (
            "`train_bpe`",
            f"about {train_bytes // 1000:,} kB of generated {kinds[train_kind]}, "
            f"`vocab_size={calibration.TRAIN_VOCAB_SIZE}`, special token `{eot}`",
            f"{calibration.FACTORS['train']:g} x the reference solution's CPU time",
        ),
        (
            "`BPETokenizer.encode`",
            f"about {encode_bytes // 1000:,} kB of generated {kinds[encode_kind]}, one call, "
            f"with a {encode_vocab}-token vocabulary",
            f"{calibration.FACTORS['encode']:g} x the reference solution's CPU time",
        ),
        (
            "`encode_iterable` (memory)",
            f"about {stream_bytes // 1_000_000} MB of generated {kinds[stream_kind]}, read in chunks",
            f"memory growth at most {per_byte} bytes per byte of the file "
            f"({per_byte * stream_bytes // 1_000_000} MB)",
        ),
    ]
    lines = ["| What is measured | On what | Your limit |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines.append("")
    lines.append(
        f"A run that has used {calibration.ABORT_AT:g} x its limit of CPU time is stopped there (it "
        "could not pass anyway), so a very slow implementation fails quickly instead of hanging, "
        "and in the same words on every machine. The memory test grades memory, never speed: it "
        f"first streams the file's first {sample:,} characters, and the whole file may then take "
        f"{pace:g} x the CPU time that pace predicts, so a slow but right encoder is measured, not "
        "stopped (an encoder whose work grows with the text it has read so far is stopped)."
    )
    lines.append("")
    lines.append(
        "These budgets are what the speed tests grade. They are not the sandbox's limits of "
        f"{calibration.TEST_FACTOR:g} x per test and {calibration.CALL_FACTOR:g} x per call "
        "([Grading](README.md#grading)): every test runs under those too, and they only stop code "
        "that would never finish."
    )
    return "\n".join(lines)


def render_time_limits() -> str:
    """What every test may spend, in the words a student needs when a test runs out of time."""
    from grader import calibration

    factor, call = calibration.TEST_FACTOR, calibration.CALL_FACTOR
    per_call, per_child = calibration.CALL_ALLOWANCE_S, calibration.CHILD_ALLOWANCE_S
    idle = _module_constant(PROCESS, "IDLE_S")
    return (
        "Your code runs in a sandbox, with limits on time and memory. Time is CPU time, so a busy "
        f"machine does not fail you. Each test may use {factor:g} x the CPU time the reference "
        f"solution needs for it, and each call {call:g} x the reference's slowest call in that "
        f"test, both plus {per_call:g} s for every call and {per_child:g} s for every process it runs "
        "(the children of a `multiprocessing` pool); on a slower machine, these seconds grow with it. "
        "Importing your package is no test's time: each test's fresh process imports it before the "
        f"test starts, under a limit of its own, {calibration.IMPORT_CPU_S:g} s of CPU time (a package "
        "that imports a heavy library such as `torch` is fine); an import over it, or one that waits "
        "or crashes, leaves every test not graded, and one over "
        f"{calibration.IMPORT_NOTED_S:g} s is named once at the top of the grade. Such a slow import "
        "is also added once to a call that runs other processes, not once per process: a pool whose "
        "children each import your package again (the `spawn` start method) should keep heavy "
        "imports out of the modules its children load. "
        f"A call that uses no CPU time for {idle:g} s (a sleep, or a pool whose child died) is "
        "stopped then. A test that runs out of time fails with a message naming the call, its "
        "input and the limit; it does not take the other tests down with it. These limits only "
        "stop code that would never finish: the speed tests of Part 4 grade speed against budgets "
        f"of their own, {calibration.FACTORS['train']:g} x and {calibration.FACTORS['encode']:g} x "
        "the reference ([Part 4](part4_efficiency.md))."
    )


def replace_block(
    text: str, table: str, where: Path = HANDOUT, begin: str = BEGIN, end_marker: str = END
) -> str:
    """`text` with everything between the markers replaced by `table`."""
    start, end = text.find(begin), text.find(end_marker)
    if start < 0 or end < start:
        raise RubricError(f"{where}: the markers {begin} and {end_marker} are missing or out of order")
    return text[: start + len(begin)] + "\n" + table + "\n" + text[end:]


def current_block(text: str, begin: str = BEGIN, end_marker: str = END) -> str:
    """What is between the markers now (without the surrounding newlines)."""
    start, end = text.find(begin), text.find(end_marker)
    return text[start + len(begin) : end].strip("\n") if 0 <= start < end else ""


def generated_files() -> tuple[dict[Path, tuple[str, str]], list[str]]:
    """Each handout file with a generated block -> (its text now, its text as generated), and the
    errors of the blocks that could not be generated (the others are still returned)."""
    jobs = {
        HANDOUT: lambda text: replace_block(
            replace_block(
                replace_block(text, render_points(load_rubric())),
                render_rules(load_rubric()),
                HANDOUT,
                RULES_BEGIN,
                RULES_END,
            ),
            render_time_limits(),
            HANDOUT,
            LIMITS_BEGIN,
            LIMITS_END,
        ),
        EFFICIENCY: lambda text: replace_block(
            text, render_budgets(), EFFICIENCY, BUDGETS_BEGIN, BUDGETS_END
        ),
    }
    files, errors = {}, []
    for path, generate in jobs.items():
        try:
            text = path.read_text(encoding="utf-8")
            files[path] = (text, generate(text))
        except (RubricError, OSError, ImportError, KeyError) as error:
            errors.append(str(error))
    return files, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assignment.build", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that the table is current")
    args = parser.parse_args(argv)
    files, errors = generated_files()
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    stale = [path for path, (text, updated) in files.items() if text != updated]
    if args.check:
        for path in stale:
            print(
                f"error: {path.relative_to(ROOT)} is out of date with grader/rubric.toml, "
                "grader/calibration.py or assignment/kit_rules.toml; run `python -m assignment.build`",
                file=sys.stderr,
            )
        if not stale and not errors:
            print("the handout's generated tables are current")
        return 1 if stale or errors else 0
    for path in stale:
        path.write_text(files[path][1], encoding="utf-8")
    for path in files:
        print(f"{path.relative_to(ROOT)}: {'rewritten' if path in stale else 'already current'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
