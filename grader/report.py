"""The three faces of a grade: Gradescope's results.json, junit.xml, and the terminal table.

results.json is deterministic for a given submission apart from timings: `execution_time`, and the
measured seconds and megabytes that the efficiency tests report next to their verdict and as data
in the test's `extra_data.figures` (tests come in rubric order, with no durations and no temp
paths). Scores and statuses never vary.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from . import i18n, python_needed, textwidth
from .budgets import IMPORT_NOTED_S
from .checks.speed import margin
from .errors import does_not_import
from .folding import Indexed, later_tests, output_note, same_cause, same_cause_line, stubs, test_output
from .i18n import N_, _
from .scoring import Scored
from .terms import Status

# A test's status as the table shows it (the status itself is data: results.json keeps it in English).
STATUS_WORDS = {
    Status.PASSED: N_("passed"),
    Status.FAILED: N_("failed"),
    Status.NOT_IMPLEMENTED: N_("not implemented"),
    Status.SKIPPED: N_("skipped"),
    Status.NOT_RUN: N_("not run"),
    Status.NOT_GRADED: N_("not graded"),
    Status.NOT_IN_CONTRACT: N_("not part of this contract"),
    Status.SAME_CAUSE: N_("same cause"),
}
MIN_WIDTH = 80
MAX_WIDTH = 120


@dataclass(frozen=True)
class Scope:
    """What a grade covers: the tests it ran (`selection` says how they were picked, None for all),
    and the points this copy of the rubric leaves to Gradescope (`withheld`)."""

    selection: str | None = None
    total_points: float = 0
    withheld: float = 0
    full_grade: str | None = None  # the command that grades it all (None: `make grade`, in words)


def status_words(status: str) -> str:
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def _points(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(float(x), 4)


def banners(scored: list[Scored]) -> list[str]:
    """One paragraph per file that does not import, said once for the whole grade (each test it
    costs only names it): the file, the line and the error, then which tests it leaves ungraded."""
    seen: dict[str, tuple[dict, int]] = {}
    for s in scored:
        if s.status == Status.NOT_GRADED and s.not_imported:
            data = s.not_imported
            first, count = seen.get(data["file"], (data, 0))
            seen[data["file"]] = (first, count + 1)
    out = []
    for data, count in seen.values():
        lines = [does_not_import(data)]
        if data.get("text"):
            lines.append(f"    {data['text']}")
        newer = python_needed.hint(data)
        if newer:
            lines.append(newer)
        others = any(t.status != Status.NOT_GRADED for t in scored)
        lines.append(
            (
                _(
                    "The {count} test(s) that need it are not graded (0 points each); the others are graded as usual."
                )
                if others
                else _("The {count} test(s) that need it are not graded (0 points each).")
            ).format(count=count)
        )
        out.append("\n".join(lines))
    return out


def import_note(scored: list[Scored]) -> str | None:
    """One line when importing the submission was slow (over budgets.IMPORT_NOTED_S): it is no
    test's time, but the student waits for it once per test, and should know that it was not charged."""
    slowest = max((s.imported for s in scored if s.imported), key=lambda x: x.get("cpu_s", 0), default=None)
    if not slowest or slowest.get("cpu_s", 0) <= IMPORT_NOTED_S:
        return None
    return _(
        "Importing your bpe package took {cpu_s:.1f} s of CPU time, in every test's fresh "
        "process (not charged to any test; the import's own limit is {limit_s:.0f} s)."
    ).format(cpu_s=slowest["cpu_s"], limit_s=slowest["limit_s"])


def preamble(scored: list[Scored]) -> list[str]:
    """The paragraphs said once, above the tests: the files that do not import, a slow import."""
    note = import_note(scored)
    return banners(scored) + ([note] if note else [])


def _extra_data(s: Scored) -> dict:
    """What a test measured, and the fault it was charged for, as data (`extra_data`)."""
    extra = {}
    if s.figures:
        extra["figures"] = s.figures
    if (s.cause or {}).get("key"):
        extra["cause"] = {"key": s.cause["key"], "where": s.cause.get("where", "")}
    if s.same_as:
        extra["same_cause_as"] = s.same_as
        extra["charged"] = s.status != Status.SAME_CAUSE
    return {"extra_data": extra} if extra else {}


def results_json(
    scored: list[Scored], *, execution_time: float, isolation: str, scope: Scope = Scope()
) -> dict:
    total = sum(s.score for s in scored)
    maximum = sum(s.entry.points for s in scored)
    earlier, later = same_cause(scored), later_tests(scored)
    tests = [
        {
            "name": s.entry.shown_name(),
            "number": s.entry.number,
            "score": _points(s.score),
            "max_score": _points(s.entry.points),
            "status": Status.PASSED if s.status == Status.PASSED else Status.FAILED,
            "visibility": s.entry.visibility,
            "output": test_output(s, earlier.get(k), later.get(s.entry.number, [])),
            **_extra_data(s),
        }
        for k, s in enumerate(scored)
    ]
    for t, s in zip(tests, scored):
        if s.status == Status.NOT_IN_CONTRACT:  # neither passed nor failed (Gradescope shows 0/0)
            del t["status"]
    not_impl = sum(s.status == Status.NOT_IMPLEMENTED for s in scored)
    summary = _("Score: {total} / {maximum}.").format(total=_points(total), maximum=_points(maximum))
    if not_impl:
        summary = i18n.sentences(
            summary, _("{count} test(s) reach code that is not implemented yet.").format(count=not_impl)
        )
    not_graded = preamble(scored)
    if not_graded:
        summary = "\n\n".join([*not_graded, summary])
    extra = {"isolation": isolation, "max_score": _points(maximum), "language": i18n.current()}
    if scope.selection:
        summary = i18n.sentences(
            summary, _("Partial grade: only {selection} ran.").format(selection=scope.selection)
        )
        extra["partial"] = scope.selection
    if scope.withheld:
        if not scope.selection:
            summary = i18n.sentences(
                summary,
                _("{points} more points come from hidden tests, graded on Gradescope.").format(
                    points=_points(scope.withheld)
                ),
            )
        extra["withheld_points"] = _points(scope.withheld)
    return {
        "score": _points(total),
        "execution_time": round(execution_time, 2),
        "output": summary,
        "tests": tests,
        "extra_data": extra,
    }


def error_results(message: str) -> dict:
    """A results.json for a submission that could not be graded at all (shown to the student)."""
    return {
        "score": 0,
        "execution_time": 0,
        "tests": [],
        "output": _("The autograder could not grade this submission: {message}").format(message=message),
        "extra_data": {"error": message, "language": i18n.current()},
    }


def write_results(results: dict, out_dir: Path) -> Path:
    """Written to a temporary name, then renamed: results.json is either whole or absent."""
    path = Path(out_dir) / "results.json"
    tmp = path.with_name(".results.json.tmp")
    tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def write_junit(scored: list[Scored], out_dir: Path, *, execution_time: float) -> Path:
    failures = sum(s.status not in (Status.PASSED, Status.NOT_IN_CONTRACT) for s in scored)
    suite = ET.Element(
        "testsuite",
        name="bpe-kit",
        tests=str(len(scored)),
        failures=str(failures),
        errors="0",
        time=f"{execution_time:.3f}",
    )
    for s in scored:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"part {s.entry.part}",
            name=f"{s.entry.number} {s.entry.name}",
            time=f"{s.duration:.3f}",
        )
        ET.SubElement(case, "properties").extend(
            [
                ET.Element("property", name="points", value=str(_points(s.entry.points))),
                ET.Element("property", name="score", value=str(_points(s.score))),
                ET.Element("property", name="visibility", value=s.entry.visibility),
            ]
        )
        if s.status == Status.NOT_IN_CONTRACT:
            ET.SubElement(case, "skipped", message=s.feedback[:200])
        elif s.status != Status.PASSED:
            first = (s.feedback.splitlines() or [s.status])[0][:200]
            message = first if first.startswith(s.status) else f"{s.status}: {first}"
            node = ET.SubElement(case, "failure", message=message, type=s.status)
            node.text = s.feedback
        if s.output:
            ET.SubElement(case, "system-out").text = s.output
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    path = Path(out_dir) / "junit.xml"
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path


def terminal_width() -> int:
    """The terminal's columns, kept between 80 (a row never needs fewer) and 120 (easy reading)."""
    return max(MIN_WIDTH, min(MAX_WIDTH, shutil.get_terminal_size((100, 24)).columns))


def _name_lines(name: str, width: int) -> list[str]:
    """A test's name in lines of at most `width` columns, whole: wrapped at spaces, never cut."""
    return textwidth.wrap(name, width, break_long_words=True, break_on_hyphens=False) or [""]


def _numbers(tests: list[Scored]) -> str:
    """'2.3-2.18' for tests next to each other in the rubric, '1.1, 2.4-2.6' otherwise."""
    runs: list[list[str]] = []
    for s, after in zip(tests, [None, *tests]):
        if after is not None and s.index == after.index + 1:
            runs[-1].append(s.entry.number)
        else:
            runs.append([s.entry.number])
    return i18n.listing(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _tests(group: list[Indexed]) -> str:
    numbers = _numbers(group)
    return (_("test {numbers}") if len(group) == 1 else _("tests {numbers}")).format(numbers=numbers)


def _wrap(text: str, width: int) -> list[str]:
    """Each line wrapped at `width` columns, its indentation kept; long words (paths, reprs) are not cut."""
    out = []
    for line in text.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        out += textwidth.wrap(
            line,
            width,
            subsequent_indent=indent + "  ",
            break_long_words=False,
            break_on_hyphens=False,
            drop_whitespace=False,
        ) or [""]
    return [line.rstrip() for line in out]


def total_line(scored: list[Scored], scope: Scope = Scope()) -> list[str]:
    """The total, with what it leaves out: unselected tests, and hidden ones graded on Gradescope."""
    total = sum(s.score for s in scored)
    maximum = sum(s.entry.points for s in scored)
    said = {"total": _points(total), "maximum": _points(maximum), "withheld": _points(scope.withheld)}
    lines = []
    if scope.withheld and not scope.selection:
        line = _(
            "Total: {total} / {maximum} here; {withheld} more points from hidden tests are graded on Gradescope"
        )
    else:
        line = _("Total: {total} / {maximum}")
    lines.append(line.format(**said))
    if scope.selection:
        lines.append(
            _("Partial grade: only {selection} ran ({maximum} of the {points} points here).").format(
                selection=scope.selection, maximum=_points(maximum), points=_points(scope.total_points)
            )
        )
        command = scope.full_grade or _("`make grade` (no PART or TESTS)")
        lines.append(_("Run {command} for the full grade.").format(command=command))
    return lines


def terminal(
    scored: list[Scored], *, note: str = "", width: int | None = None, scope: Scope = Scope()
) -> str:
    """The table a student reads first, each speed gate's margin, every failure's feedback, the total.

    Fits `width` columns (default: the terminal's, see `terminal_width`): a long name goes on over
    the next lines of its column, feedback is wrapped; tests stopped by the same unwritten function
    share one line (`stubs`)."""
    width = width or terminal_width()
    lines = []
    for banner in preamble(scored):
        lines += [*_wrap(banner, width), ""]
    lines += _table(scored, width)
    gates = [s for s in scored if s.figures]
    if gates:
        lines += ["", _("Measured (1.00x is the limit; less passes):")]
        lines += [f"  {s.entry.number:<5} {margin(s.figures)}" for s in gates]
    lines += _failures(scored, width)
    lines.append("")
    for line in total_line(scored, scope):
        lines += _wrap(line, width)
    if note:
        lines += _wrap(note, width)
    return "\n".join(lines)


def _table(scored: list[Scored], width: int) -> list[str]:
    """One row per test (number, name, points, status, time), under its header."""
    w = textwidth.width
    statuses = [status_words(s.status) for s in scored]
    # As wide as the statuses every grade may show ("not implemented": 15 columns in English), or
    # as the longest here (NOT_IN_CONTRACT, in a CS336 grade).
    usual = (Status.PASSED, Status.FAILED, Status.NOT_IMPLEMENTED, Status.NOT_GRADED)
    status_w = max([w(t) for t in statuses] + [w(status_words(u)) for u in usual])
    fixed = 6 + 1 + 1 + 9 + 2 + status_w + 1 + 7  # number, points, status, time and the spaces between
    name_w = max(12, width - fixed)
    names = [s.entry.shown_name() for s in scored]
    name_w = min(name_w, max([w(n) for n in names] + [4, w(_("test"))]))
    pad, right = textwidth.ljust, textwidth.rjust
    words = {"test": _("test"), "points": _("points"), "status": _("status"), "time": _("time")}
    header = (
        f"{'#':<6} {pad(words['test'], name_w)} {right(words['points'], 9)}  "
        f"{pad(words['status'], status_w)} {right(words['time'], 7)}"
    )
    lines = [header, "-" * w(header)]
    for s, name, status in zip(scored, names, statuses):
        pts = f"{_points(s.score)}/{_points(s.entry.points)}"
        first, *rest = _name_lines(name, name_w)
        lines.append(
            f"{s.entry.number:<6} {pad(first, name_w)} {pts:>9}  {pad(status, status_w)} {s.duration:>6.2f}s"
        )
        lines += [f"{'':<6} {more}" for more in rest]
    return lines


def _failures(scored: list[Scored], width: int) -> list[str]:
    """Every test that did not pass, in rubric order, each told once: a fault's later tests in one
    line for all alike, the tests stopped at the same unwritten function in one line."""
    earlier, later = same_cause(scored), later_tests(scored)
    alike: dict[str, list[str]] = {}  # a same-cause line -> the tests (without output) it stands for
    for k, s in earlier.items():
        if not scored[k].output:
            alike.setdefault(same_cause_line(scored[k], s), []).append(scored[k].entry.number)
    told: set[str] = set()
    unwritten = stubs(scored)
    lines: list[str] = []
    stubs_told, stub_last = set(), False
    for k, s in enumerate(scored):
        group = unwritten.get(s.feedback) if s.status == Status.NOT_IMPLEMENTED and not s.output else None
        if group is not None:
            if s.feedback not in stubs_told:  # one line each, the stubs' lines together
                stubs_told.add(s.feedback)
                lines += [] if stub_last else [""]
                lines += _wrap(f"--- {s.feedback.rstrip('.。')}: {_tests(group)}", width)
                stub_last = True
            continue
        if s.status == Status.NOT_GRADED:  # the banner said why and the table names it: one short line
            lines += ["", *_wrap(f"--- {s.entry.number}: {s.feedback}", width)]
            lines += _output_lines(s, width)
        elif k in earlier:  # the first test of this cause said it all: one line for all alike
            lines += _same_cause_lines(s, earlier[k], alike, told, width)
        elif s.status not in (Status.PASSED, Status.NOT_IN_CONTRACT):
            lines += [
                "",
                *_wrap(f"--- {s.entry.number} {s.entry.shown_name()}: {status_words(s.status)}", width),
            ]
            lines += _wrap(test_output(s, None, later.get(s.entry.number, [])).rstrip(), width)
        else:
            continue
        stub_last = False
    return lines


def _same_cause_lines(
    s: Scored, first: Scored, alike: dict[str, list[str]], told: set[str], width: int
) -> list[str]:
    """A later test of a fault: its own line when its code printed something, else one line for
    all the tests alike (`told` keeps the lines said)."""
    said = same_cause_line(s, first)
    if s.output:
        return [
            "",
            *_wrap(f"--- {s.entry.number}: {said[0].lower()}{said[1:]}", width),
            *_output_lines(s, width),
        ]
    if said in told:
        return []
    told.add(said)
    return ["", *_wrap(f"--- {i18n.listing(alike[said])}: {said[0].lower()}{said[1:]}", width)]


def _output_lines(s: Scored, width: int) -> list[str]:
    return _wrap(output_note(s.output).rstrip(), width) if s.output else []


def next_step(scored: list[Scored], scope: Scope, contract: str) -> str | None:
    """What to do after a full grade of this kit's assignment in which every test passes: pack it
    and upload it (the handout's "Submitting"). None otherwise (a partial grade, a failed test, a
    CS336 repository, which is not submitted this way)."""
    if contract != "kit" or scope.selection or not scored or any(s.score < s.entry.points for s in scored):
        return None
    return _(
        "Every test here passes. Next: `make submission` writes submission.zip; upload it to "
        "Gradescope (assignment/README.md, Submitting)."
    )
