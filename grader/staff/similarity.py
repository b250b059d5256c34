"""A MOSS-style similarity check of a class, with copydetect (winnowing over normalised tokens).

Each submission's Python files become one document (its `bpe` package; under the CS336 contract,
the repository's Python files, found by its tests/adapters.py); the starter code is boilerplate, so
what every student was given never counts as shared: the kit's `starter/`, or, for CS336, the
assignment's skeleton repository. A folder of earlier years' submissions can be compared against
too. The output is a ranked list of pairs (`similarity.csv`) and a page showing the
matching code side by side (`similarity.html`). It only reads submissions: it never changes a grade,
and a high similarity is a reason to look, not a verdict.
"""

from __future__ import annotations

import csv
import io
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from ..cs336 import intake as cs336_intake
from ..errors import StaffFileError, SubmissionError
from ..farm.unpack import prepare
from .feedback_pages import _env

if TYPE_CHECKING:
    from copydetect import CopyDetector

PAGE_PAIRS = 50  # pairs shown side by side; the CSV lists every pair above the threshold


@dataclass(frozen=True)
class Pair:
    a: str  # a student id
    b: str  # a student id, or "earlier/<name>" for an earlier year's submission
    similarity: float  # the larger of the two shares of code found in the other (0..1)
    a_share: float
    b_share: float
    overlap_tokens: int


def _document(package: Path) -> str:
    parts = []
    for f in sorted(package.rglob("*.py")):
        if "__pycache__" in f.parts or f.is_symlink():
            continue
        try:
            parts.append(f"# {f.relative_to(package)}\n" + f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return "\n".join(parts)


def _code(path: Path, scratch: Path, contract: str) -> str:
    """The student's code in one document: the `bpe` package's Python files, or (cs336) the
    repository's (grader/cs336/intake.py: its own packages and tests/, without data or a venv)."""
    if contract == "cs336":
        with cs336_intake.opened(path) as staged:
            return _document(staged.parent / "bpe" / "_repo")
    root = prepare(path, scratch)
    return _document(root / "bpe" if (root / "bpe").is_dir() else root)


def _collect(
    folder: Path, into: Path, scratch: Path, skipped: list[str], prefix: str = "", contract: str = "kit"
) -> None:
    into.mkdir(parents=True)
    for p in sorted(folder.iterdir()):
        if p.name.startswith((".", "__MACOSX")):
            continue
        name = p.name[:-4] if p.is_file() and p.name.lower().endswith(".zip") else p.name
        try:
            doc = _code(p, scratch / (prefix + name), contract)
        except SubmissionError:
            skipped.append(prefix + name)
            continue
        if doc.strip():
            (into / f"{name}.py").write_text(doc, encoding="utf-8")
        else:
            skipped.append(prefix + name)


def _given(starter: Path, contract: str) -> str:
    """What every student was given: the starter folder (a `bpe` package, or the folder's Python
    files), or (cs336) the skeleton repository."""
    if contract == "cs336":
        try:
            return _code(starter, Path(), contract)
        except SubmissionError as e:
            raise StaffFileError(f"--starter {starter}: not the CS336 skeleton repository ({e})") from None
    return _document(starter / "bpe" if (starter / "bpe").is_dir() else starter)


def compare(
    submissions: Path,
    *,
    starter: Path | None = None,
    earlier: Path | None = None,
    threshold: float = 0.0,
    noise: int = 25,
    guarantee: int = 30,
    contract: str = "kit",
) -> tuple[list[Pair], dict[tuple[str, str], tuple[str, str]], list[str]]:
    """(pairs ranked by similarity, side-by-side highlighted HTML by pair, unreadable submissions).

    `contract="cs336"`: each submission is a CS336 repository, and `starter` its skeleton."""
    from copydetect import CopyDetector

    for p, what in ((submissions, "submissions"), (starter, "starter"), (earlier, "earlier submissions")):
        if p is not None and not Path(p).is_dir():
            raise StaffFileError(f"{p}: not a folder of {what}")
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="similarity-") as tmp:
        t = Path(tmp)
        _collect(Path(submissions), t / "current", t / "scratch", skipped, contract=contract)
        refs = [str(t / "current")]
        if earlier is not None:
            _collect(
                Path(earlier),
                t / "earlier",
                t / "scratch-earlier",
                skipped,
                prefix="earlier/",
                contract=contract,
            )
            refs.append(str(t / "earlier"))
        (t / "boilerplate").mkdir()
        if starter is not None:
            (t / "boilerplate" / "starter.py").write_text(_given(Path(starter), contract), encoding="utf-8")
        logging.getLogger().setLevel(logging.ERROR)  # copydetect warns on empty folders
        det = CopyDetector(
            test_dirs=[str(t / "current")],
            ref_dirs=refs,
            boilerplate_dirs=[str(t / "boilerplate")],
            extensions=["py"],
            noise_t=noise,
            guarantee_t=guarantee,
            display_t=threshold,
            autoopen=False,
            silent=True,
        )
        det.test_files = sorted(det.test_files)  # copydetect lists files through a set
        det.ref_files = sorted(det.ref_files)
        if not det.test_files:
            return [], {}, skipped
        det.run()
        found = _ranked(det, threshold)
        views = _views(det, found[:PAGE_PAIRS])  # highlighting is slow: only the pairs shown
        pairs = [pair for pair, _, _ in found]
    return pairs, views, sorted(skipped)


def _label(f: str) -> str:
    """A compared file's name in the report: the student's id, "earlier/" before an earlier one's."""
    p = Path(f)
    return ("earlier/" if p.parent.name == "earlier" else "") + p.stem


def _ranked(det: CopyDetector, threshold: float) -> list[tuple[Pair, str, str]]:
    """Each pair of files over `threshold` once, most similar first, with its two files."""
    found, seen = [], set()
    for i, fa in enumerate(det.test_files):
        for j, fb in enumerate(det.ref_files):
            s1, s2 = det.similarity_matrix[i, j]
            if s1 < 0 or fa == fb or (fb, fa) in seen:
                continue
            seen.add((fa, fb))
            sim = float(max(s1, s2))
            if sim > threshold:
                pair = Pair(
                    _label(fa),
                    _label(fb),
                    round(sim, 4),
                    round(float(s1), 4),
                    round(float(s2), 4),
                    int(det.token_overlap_matrix[i, j]),
                )
                found.append((pair, fa, fb))
    found.sort(key=lambda x: (-x[0].similarity, x[0].a, x[0].b))
    return found


def _views(det: CopyDetector, found: list[tuple[Pair, str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """Each pair's two files side by side, their matching code highlighted (HTML)."""
    from copydetect.utils import highlight_overlap

    views = {}
    for pair, fa, fb in found:
        slices = det.slice_matrix.get((fa, fb))
        if slices is None and (fb, fa) in det.slice_matrix:
            slices = det.slice_matrix[(fb, fa)][::-1]
        if slices is not None:
            views[(pair.a, pair.b)] = (
                highlight_overlap(
                    det.file_data[fa].raw_code, slices[0], "<mark>", "</mark>", escape_html=True
                )[0],
                highlight_overlap(
                    det.file_data[fb].raw_code, slices[1], "<mark>", "</mark>", escape_html=True
                )[0],
            )
    return views


def pairs_csv(pairs: list[Pair]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "a", "b", "similarity", "share_of_a", "share_of_b", "overlap_tokens"])
    for n, p in enumerate(pairs, start=1):
        w.writerow(
            [n, p.a, p.b, f"{p.similarity:.3f}", f"{p.a_share:.3f}", f"{p.b_share:.3f}", p.overlap_tokens]
        )
    return buf.getvalue()


def page(pairs: list[Pair], views: dict, skipped: list[str]) -> str:
    """similarity.html: the ranked pairs, the top ones with their matching code side by side."""
    shown = [
        {"pair": p, "left": Markup(views[(p.a, p.b)][0]), "right": Markup(views[(p.a, p.b)][1])}
        for p in pairs[:PAGE_PAIRS]
        if (p.a, p.b) in views
    ]
    return _env().get_template("similarity.html").render(pairs=pairs, shown=shown, skipped=skipped)


def write(out: Path, pairs: list[Pair], views: dict, skipped: list[str]) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "similarity.csv").write_text(pairs_csv(pairs), encoding="utf-8")
    (out / "similarity.html").write_text(page(pairs, views, skipped), encoding="utf-8")
