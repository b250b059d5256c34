"""Write the handout's generated tables: `python -m assignment.build`.

These tables are never edited by hand, so the handout cannot promise what the grader does not do:
- the points table in assignment/README.md, from grader/rubric.toml (hidden tests, i.e. those
  marked hidden or living in test_hidden_*.py files, are counted, never named: "hidden tests:
  N points" per part);
- the speed and memory limits in assignment/part4_efficiency.md, from grader/budgets.py and
  the memory gate of tests/graded/test_efficiency.py;
- the table of this kit's own rules in assignment/README.md, from assignment/kit_rules.toml, with
  the tests that check each rule named from the rubric (only visible tests may be cited);
- the time limits of every test in assignment/README.md, from grader/budgets.py and
  grader/sandbox/process.py.
Each sits between two markers, in every language of the handout (English in assignment/, Chinese
in assignment/zh/), generated from the same sources: each rubric test and kit rule carries its
text in every language (`name`/`name_zh`, `rule`/`rule_zh`), and one that lacks a language stops the
build. `--check` only compares (exit 1 if a committed table is out of date); the kit's tests run the
same comparison.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tomllib
from pathlib import Path

from grader.errors import RubricError
from grader.i18n import ENGLISH
from grader.i18n import LANGUAGES as I18N_LANGUAGES
from grader.paths import (
    ASSIGNMENT_DIR,
    DEFAULT_RUBRIC,
    DEFAULT_TESTS_DIR,
    FIXTURES,
    GRADER_DIR,
    KIT_ROOT,
    SANDBOX_DIR,
)
from grader.terms import SHOWN_LATER, VISIBILITIES, Visibility

from .handout_words import RUBRIC_NAME, RULE_TEXT, WORDS

RUBRIC = DEFAULT_RUBRIC
HANDOUT = ASSIGNMENT_DIR / "README.md"
BEGIN = "<!-- rubric:begin -->"
END = "<!-- rubric:end -->"
EFFICIENCY = ASSIGNMENT_DIR / "part4_efficiency.md"
BUDGETS_BEGIN = "<!-- budgets:begin -->"
BUDGETS_END = "<!-- budgets:end -->"
SPEED_TESTS = DEFAULT_TESTS_DIR / "test_efficiency.py"
KIT_RULES = ASSIGNMENT_DIR / "kit_rules.toml"
RULES_BEGIN = "<!-- kit-rules:begin -->"
RULES_END = "<!-- kit-rules:end -->"
LIMITS_BEGIN = "<!-- time-limits:begin -->"
LIMITS_END = "<!-- time-limits:end -->"
PROCESS = SANDBOX_DIR / "process.py"

# The handout's languages and their folders; every file of a translation has the English name.
# Each language of the grader (grader/i18n.py) has its handout: English at the top, the others in
# a folder named by their code.
LANGUAGES = {lang: ASSIGNMENT_DIR / ("" if lang == ENGLISH else lang) for lang in I18N_LANGUAGES}
PARTS = (1, 2, 3, "efficiency")


def translated(path: Path, lang: str) -> Path:
    """The file of the handout in `lang` that stands for the English `path`."""
    return LANGUAGES[lang] / path.relative_to(LANGUAGES["en"])


def load_rubric(path: Path = RUBRIC) -> list[dict]:
    """The [[test]] entries of the rubric, checked for the fields the table needs."""
    try:
        tests = tomllib.loads(path.read_text(encoding="utf-8")).get("test", [])
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RubricError(f"{path}: {error}") from None
    for i, test in enumerate(tests, start=1):
        where = f"{path}: [[test]] number {i} ({test.get('id', 'no id')})"
        for key in ("number", *RUBRIC_NAME.values(), "part", "points"):
            if key not in test:
                raise RubricError(f"{where}: missing {key!r}")
        for key in RUBRIC_NAME.values():
            if not isinstance(test[key], str) or not test[key].strip():
                raise RubricError(f"{where}: {key} must be a non-empty string")
        if test["part"] not in PARTS:
            raise RubricError(f"{where}: part must be one of {list(PARTS)}, not {test['part']!r}")
        if test.get("visibility", Visibility.VISIBLE) not in VISIBILITIES:
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
    return test.get("visibility", Visibility.VISIBLE) == Visibility.HIDDEN or test.get("id", "").split("/")[
        -1
    ].startswith("test_hidden_")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def render_table(tests: list[dict], lang: str = "en") -> str:
    """The Markdown table: visible tests by part in number order, hidden ones as a sum."""
    words, name_key = WORDS[lang], RUBRIC_NAME[lang]
    lines = [words["points_header"], "| --- | --- | ---: |"]
    for part in PARTS:
        mine = [t for t in tests if t["part"] == part]
        if not mine:
            continue
        lines.append(f"| **{words[f'part_{part}']}** | | **{_points(sum(t['points'] for t in mine))}** |")
        for test in sorted((t for t in mine if not is_hidden(t)), key=lambda t: _number_key(t["number"])):
            visibility = test.get("visibility", Visibility.VISIBLE)
            name = test[name_key]
            if visibility in SHOWN_LATER:
                name = words["shown_later"].format(name=name, note=words[visibility])
            lines.append(f"| {_cell(test['number'])} | {_cell(name)} | {_points(test['points'])} |")
        hidden = sum(t["points"] for t in mine if is_hidden(t))
        if hidden:
            lines.append(f"| | {words['hidden_tests'].format(points=_points(hidden))} | {_points(hidden)} |")
    lines.append(f"| | **{words['total']}** | **{_points(sum(t['points'] for t in tests))}** |")
    return "\n".join(lines)


def render_points(tests: list[dict], lang: str = "en") -> str:
    """The points table, then what one fault costs at most (grader/charges.py), stated once here."""
    cap = _module_constant(GRADER_DIR / "charges.py", "CAP")
    return render_table(tests, lang) + "\n\n" + WORDS[lang]["cap"].format(cap=_points(cap))


def load_rules(path: Path = KIT_RULES) -> list[dict]:
    """The [[rule]] entries of the kit's rules, each checked for its text in every language."""
    try:
        rules = tomllib.loads(path.read_text(encoding="utf-8")).get("rule", [])
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RubricError(f"{path}: {error}") from None
    for i, rule in enumerate(rules, start=1):
        where = f"{path}: [[rule]] number {i}"
        texts = RULE_TEXT.values()
        missing = [key for key in texts if not isinstance(rule.get(key), str) or not rule[key].strip()]
        if missing:
            raise RubricError(
                f"{where}: needs {' and '.join(texts)} (non-empty strings); {missing[0]} is missing"
            )
        parts = rule.get("parts")
        if not isinstance(parts, list) or not 1 <= len(parts) <= 2 or any(p not in PARTS[:3] for p in parts):
            raise RubricError(f"{where}: parts must list the one or two parts (1, 2, 3) that state the rule")
        if not isinstance(rule.get("tests"), list):
            raise RubricError(f"{where}: tests must be a list of rubric numbers")
    return rules


def _stated_in(parts: list[int], lang: str) -> str:
    words = WORDS[lang]
    return (
        words["one_part"].format(a=parts[0])
        if len(parts) == 1
        else words["two_parts"].format(a=parts[0], b=parts[1])
    )


def render_rules(tests: list[dict], path: Path = KIT_RULES, lang: str = "en") -> str:
    """The kit's own rules, each with the visible tests that check it (number and rubric name)."""
    words, name_key = WORDS[lang], RUBRIC_NAME[lang]
    visible = {str(t["number"]): t for t in tests if not is_hidden(t)}
    lines = [words["rules_header"], "| --- | --- | --- |"]
    for i, rule in enumerate(load_rules(path), start=1):
        unknown = [n for n in rule["tests"] if str(n) not in visible]
        if unknown:
            raise RubricError(
                f"{path}: [[rule]] number {i}: {unknown[0]!r} is not a visible test of grader/rubric.toml"
            )
        checked = words["checked_by_joiner"].join(
            words["checked_by"].format(number=n, name=visible[str(n)][name_key]) for n in rule["tests"]
        )
        lines.append(
            f"| {_cell(rule[RULE_TEXT[lang]])} | {_cell(_stated_in(rule['parts'], lang))} "
            f"| {_cell(checked or words['no_graded_test'])} |"
        )
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


def render_budgets(lang: str = "en") -> str:
    """The limits table of Part 4, in the words a student needs: workload and ratio."""
    from grader import budgets
    from grader.checks import timing_rule

    words = WORDS[lang]
    train_kind, train_bytes, _ = budgets.TRAIN_CORPUS
    encode_kind, encode_bytes, _ = budgets.ENCODE_TEXT
    case = FIXTURES / "public" / "train" / budgets.ENCODE_TRAIN_CASE / "case.json"
    try:
        encode_vocab = json.loads(case.read_text(encoding="utf-8"))["vocab_size"]
    except (OSError, ValueError, KeyError) as error:
        raise RubricError(f"{case}: {error}") from None
    stream_kind, stream_bytes, _ = budgets.STREAM_FILE
    per_byte = _module_constant(SPEED_TESTS, "MEMORY_LIMIT_PER_FILE_BYTE")
    sample = _module_constant(SPEED_TESTS, "SAMPLE_CHARS")
    pace = _module_constant(SPEED_TESTS, "PACE_FACTOR")
    eot = "<\\|endoftext\\|>"  # `|` must be escaped inside a Markdown table
    rows = [
        (
            "`train_bpe`",
            words["train_workload"].format(
                kb=f"{train_bytes // 1000:,}",
                kind=words[f"corpus_{train_kind}"],
                vocab_size=budgets.TRAIN_VOCAB_SIZE,
                eot=eot,
            ),
            words["speed_limit"].format(factor=f"{budgets.FACTORS['train']:g}"),
        ),
        (
            "`BPETokenizer.encode`",
            words["encode_workload"].format(
                kb=f"{encode_bytes // 1000:,}", kind=words[f"corpus_{encode_kind}"], vocab=encode_vocab
            ),
            words["speed_limit"].format(factor=f"{budgets.FACTORS['encode']:g}"),
        ),
        (
            words["stream_what"],
            words["stream_workload"].format(
                mb=stream_bytes // 1_000_000, kind=words[f"corpus_{stream_kind}"]
            ),
            words["memory_limit"].format(per_byte=per_byte, total_mb=per_byte * stream_bytes // 1_000_000),
        ),
    ]
    lines = [words["budgets_header"], "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines.append("")
    lines.append(
        words["budgets_abort"].format(abort=f"{budgets.ABORT_AT:g}", sample=f"{sample:,}", pace=f"{pace:g}")
    )
    lines.append("")
    lines.append(
        words["budgets_borderline"].format(
            runs=timing_rule.MOST_RUNS,
            over=round((timing_rule.BORDER - 1) * 100),
            border=f"{timing_rule.BORDER:g}",
        )
    )
    lines.append("")
    lines.append(
        words["budgets_not_sandbox"].format(test=f"{budgets.TEST_FACTOR:g}", call=f"{budgets.CALL_FACTOR:g}")
    )
    return "\n".join(lines)


def render_time_limits(lang: str = "en") -> str:
    """What every test may spend, in the words a student needs when a test runs out of time."""
    from grader import budgets
    from grader.sandbox import options

    limits = options.Limits()
    return WORDS[lang]["time_limits"].format(
        nproc=f"{options.NPROC:,}",
        memory_gib=f"{limits.memory_bytes / 1024**3:g}",
        open_files=limits.open_files,
        factor=f"{budgets.TEST_FACTOR:g}",
        call=f"{budgets.CALL_FACTOR:g}",
        per_call=f"{budgets.CALL_ALLOWANCE_S:g}",
        per_child=f"{budgets.CHILD_ALLOWANCE_S:g}",
        import_cpu=f"{budgets.IMPORT_CPU_S:g}",
        import_noted=f"{budgets.IMPORT_NOTED_S:g}",
        idle=f"{_module_constant(PROCESS, 'IDLE_S'):g}",
        train=f"{budgets.FACTORS['train']:g}",
        encode=f"{budgets.FACTORS['encode']:g}",
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


def _generate(path: Path, lang: str, text: str) -> str:
    """`text` of the handout file `path` (in `lang`) with its generated blocks rewritten."""
    if path == translated(HANDOUT, lang):
        tests = load_rubric()
        text = replace_block(text, render_points(tests, lang), path)
        text = replace_block(text, render_rules(tests, lang=lang), path, RULES_BEGIN, RULES_END)
        return replace_block(text, render_time_limits(lang), path, LIMITS_BEGIN, LIMITS_END)
    return replace_block(text, render_budgets(lang), path, BUDGETS_BEGIN, BUDGETS_END)


def generated_files() -> tuple[dict[Path, tuple[str, str]], list[str]]:
    """Each handout file with a generated block, in every language -> (its text now, its text as
    generated), and the errors of the blocks that could not be generated (the others are still
    returned)."""
    files, errors = {}, []
    for lang in LANGUAGES:
        for path in (translated(HANDOUT, lang), translated(EFFICIENCY, lang)):
            try:
                text = path.read_text(encoding="utf-8")
                files[path] = (text, _generate(path, lang, text))
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
                f"error: {path.relative_to(KIT_ROOT)} is out of date with grader/rubric.toml, "
                "grader/budgets.py or assignment/kit_rules.toml; run `python -m assignment.build`",
                file=sys.stderr,
            )
        if not stale and not errors:
            print("the handout's generated tables are current")
        return 1 if stale or errors else 0
    for path in stale:
        path.write_text(files[path][1], encoding="utf-8")
    for path in files:
        print(f"{path.relative_to(KIT_ROOT)}: {'rewritten' if path in stale else 'already current'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
