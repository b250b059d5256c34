"""Collect an LMS bulk download into the farm's layout: one folder or zip per student id.

Three layouts are recognised:

- **Canvas** ("Download Submissions"): flat files named `login_userid_submissionid_file`, with
  `_LATE` after the login when Canvas counted it late, and `-1`, `-2`... before the extension of a
  resubmitted file. The user id is matched with the roster's `lms_id`.
- **Gradescope** ("Export Submissions"): folders `submission_<id>/` and a `submission_metadata.yml`
  giving each one's submitters (`:sid:`, `:email:`) and time (`:created_at:`). Every member of a
  group gets the group's submission.
- **Plain**: one folder or zip per student, named by student id or by the roster's `folder`.

Entries that match nobody on the roster are listed and not copied, so they are never graded by
accident. Submission times come from what the LMS exports (`read_times`: a submissions CSV, or
Gradescope's submission_metadata.yml), the download's own metadata (Gradescope's) or the roster's
`submitted_at`, never from file modification times unless asked (`use_mtime`).
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import StaffFileError
from .class_roster import Roster
from .timestamps import parse_time

MANIFEST = ".collected.json"  # hidden: the farm's roster discovery skips dot files
GRADESCOPE_METADATA = "submission_metadata.yml"
CANVAS_NAME = re.compile(r"^(?P<login>[^_]+?)(?P<late>_LATE)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
_RESUBMITTED = re.compile(r"^(?P<stem>.+?)-\d+(?P<ext>\.[^.]+)?$")
_LITTER = ("Thumbs.db", "desktop.ini")


@dataclass
class Collected:
    student: str
    source: list[str]
    lms: str
    submitted_at: datetime | None = None
    lms_late: bool = False


@dataclass
class Collection:
    students: dict[str, Collected] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)
    missing: list[dict] = field(default_factory=list)  # on the roster, nothing collected: {student, name}

    def as_json(self) -> dict:
        return {
            "format": 1,
            "students": {
                s: {
                    "source": c.source,
                    "lms": c.lms,
                    "submitted_at": c.submitted_at.isoformat() if c.submitted_at else None,
                    "lms_late": c.lms_late,
                }
                for s, c in sorted(self.students.items())
            },
            "unmatched": sorted(self.unmatched),
            "missing": self.missing,
        }


def canvas_file_name(name: str) -> str:
    """The student's own file name inside a Canvas download name (resubmission counter removed)."""
    m = CANVAS_NAME.match(name)
    base = m.group("file") if m else name
    r = _RESUBMITTED.match(base)
    return r.group("stem") + (r.group("ext") or "") if r else base


def _entries(download: Path) -> list[Path]:
    return sorted(
        p
        for p in download.iterdir()
        if not p.name.startswith((".", "__MACOSX"))
        and p.name not in _LITTER
        and p.name != GRADESCOPE_METADATA
    )


def _copy(src: Path, dest: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dest, symlinks=True)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)


def _add(col: Collection, c: Collected, where: str) -> None:
    if c.student in col.students:
        raise StaffFileError(
            f"{where}: student {c.student!r} has more than one submission: "
            + ", ".join(col.students[c.student].source + c.source)
        )
    col.students[c.student] = c


def _gradescope_metadata(meta_path: Path) -> dict:
    """Gradescope's submission_metadata.yml: folder -> {":submitters": [...], ":created_at": ...}."""
    from ruamel.yaml import YAML  # the staff extra; the farm's report reads this module without it
    from ruamel.yaml.error import YAMLError

    try:
        # Every value as text (the base loader), as the metadata's times are parsed by parse_time.
        meta = YAML(typ="base").load(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError) as e:
        raise StaffFileError(f"{meta_path}: cannot read Gradescope's metadata ({e})") from None
    if not isinstance(meta, dict):
        raise StaffFileError(f"{meta_path}: expected one entry per submission folder")
    return meta


def _submitters(info: dict, roster: Roster, where: str) -> list:
    """The roster's students among one Gradescope submission's submitters (`where`: the file and
    folder, for the message when a submitter is not a mapping)."""
    found, submitters = [], info.get(":submitters")
    for who in submitters if isinstance(submitters, list) else []:
        if not isinstance(who, dict):
            raise StaffFileError(
                f"{where}: each of :submitters: should be a mapping with :sid: and :email:, not {who!r}"
            )
        s = roster.find(student_id=str(who.get(":sid") or ""), email=str(who.get(":email") or ""))
        if s is not None:
            found.append(s)
    return found


def _gradescope(download: Path, roster: Roster, dest: Path, col: Collection) -> None:
    meta_path = download / GRADESCOPE_METADATA
    meta = _gradescope_metadata(meta_path)
    for folder in _entries(download):
        info = meta.get(folder.name)
        if not isinstance(info, dict):
            col.unmatched.append(folder.name)
            continue
        at = info.get(":created_at")
        when = parse_time(at, f"{meta_path}: {folder.name}") if at else None
        students = _submitters(info, roster, f"{meta_path}: {folder.name}")
        for s in students:
            _add(
                col,
                Collected(s.student_id, [folder.name], "gradescope", when or s.submitted_at),
                str(download),
            )
            _copy(folder, dest / s.student_id)
        if not students:
            col.unmatched.append(folder.name)


def _canvas_or_plain(download: Path, roster: Roster, dest: Path, col: Collection) -> None:
    canvas: dict[str, list[Path]] = {}
    for p in _entries(download):
        m = CANVAS_NAME.match(p.name) if p.is_file() else None
        s = roster.find(folder=p.name[:-4] if p.name.lower().endswith(".zip") else p.name)
        if s is not None:  # a plain folder or zip named by the roster
            _add(col, Collected(s.student_id, [p.name], "folder", s.submitted_at), str(download))
            _copy(p, dest / (s.student_id + (".zip" if p.is_file() else "")))
        elif m:
            canvas.setdefault(m.group("uid"), []).append(p)
        else:
            col.unmatched.append(p.name)
    for uid, files in sorted(canvas.items()):
        s = roster.find(lms_id=uid)
        if s is None:
            col.unmatched.extend(f.name for f in files)
            continue
        late = any(CANVAS_NAME.match(f.name).group("late") for f in files)
        names = [canvas_file_name(f.name) for f in files]
        _add(
            col,
            Collected(s.student_id, [f.name for f in files], "canvas", s.submitted_at, late),
            str(download),
        )
        if len(files) == 1 and names[0].lower().endswith(".zip"):
            _copy(files[0], dest / f"{s.student_id}.zip")
        else:  # loose files: the farm finds a package's own files loose in a folder
            for f, name in zip(files, names):
                _copy(f, dest / s.student_id / name)


# A submissions CSV: who (Canvas's user id, the SIS id, or the email) and when, under the column
# names of Canvas's Submission object (`user_id`, `submitted_at`), of its gradebook export (`ID`,
# `SIS User ID`) and of Gradescope's scores export (`SID`, `Email`, `Submission Time`).
_WHO = (("user_id", "lms_id"), ("ID", "lms_id"), ("SIS User ID", "student_id"), ("SID", "student_id"))
_WHO += (("student_id", "student_id"), ("email", "email"), ("Email", "email"))
_WHEN = ("submitted_at", "Submitted", "Submission Time", "Submission time")


def _times_csv(path: Path, roster: Roster) -> dict[str, datetime | None]:
    try:
        rows = list(csv.DictReader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise StaffFileError(f"{path}: cannot read the submission times ({e})") from None
    header = list(rows[0]) if rows else []
    who = next(((col, key) for col, key in _WHO if col in header), None)
    when = next((col for col in _WHEN if col in header), None)
    if who is None or when is None:
        raise StaffFileError(
            f"{path}: submission times need a student column ({', '.join(c for c, _ in _WHO)}) "
            f"and a time column ({', '.join(_WHEN)})"
        )
    times: dict[str, datetime | None] = {}
    for n, row in enumerate(rows, start=2):
        s = roster.find(**{who[1]: (row.get(who[0]) or "").strip()})
        if s is not None:
            at = (row.get(when) or "").strip()
            _keep_latest(times, s.student_id, parse_time(at, f"{path}:{n}: {when}") if at else None)
    return times


def _keep_latest(times: dict[str, datetime | None], student: str, at: datetime | None) -> None:
    """A student's latest time of all the rows naming them: a submissions-history export has one
    row per attempt, in no promised order, and the submission graded is the last one."""
    known = times.get(student)
    times[student] = at if known is None or (at is not None and at > known) else known


def read_times(path: Path, roster: Roster) -> dict[str, datetime | None]:
    """Submission times by student id from what an LMS exports: Gradescope's
    submission_metadata.yml, or a submissions CSV (the columns above). Refused when it names
    nobody on the roster: a file for another course or assignment is not silently ignored."""
    path = Path(path)
    if not path.is_file():
        raise StaffFileError(
            f"{path}: no such file (--times: the LMS's submissions CSV or submission_metadata.yml)"
        )
    if path.suffix.lower() in (".yml", ".yaml"):
        times = {}
        for folder, info in _gradescope_metadata(path).items():
            at = info.get(":created_at") if isinstance(info, dict) else None
            for s in _submitters(info, roster, f"{path}: {folder}") if isinstance(info, dict) else []:
                _keep_latest(times, s.student_id, parse_time(at, f"{path}: {folder}") if at else None)
    else:
        times = _times_csv(path, roster)
    if not times:
        raise StaffFileError(f"{path}: names nobody on the roster")
    return times


def collect(
    download: Path, roster: Roster, dest: Path, *, use_mtime: bool = False, times: Path | None = None
) -> Collection:
    """Copy every submission in `download` that matches the roster into `dest`, by student id.

    Submission times: from `times` (read_times) first, then the LMS's own metadata, then the
    roster's `submitted_at`; file times only with `use_mtime`."""
    download, dest = Path(download), Path(dest)
    if not download.is_dir():
        raise StaffFileError(f"{download}: not a folder (unzip the LMS download first)")
    exported = read_times(times, roster) if times else {}
    if dest.exists() and any(dest.iterdir()):
        raise StaffFileError(f"{dest}: already holds files; collect into a new folder")
    dest.mkdir(parents=True, exist_ok=True)
    col = Collection()
    if (download / GRADESCOPE_METADATA).is_file():
        _gradescope(download, roster, dest, col)
    else:
        _canvas_or_plain(download, roster, dest, col)
    for c in col.students.values():
        c.submitted_at = exported.get(c.student) or c.submitted_at
    col.missing = [
        {"student": s.student_id, "name": s.name} for s in roster.students if s.student_id not in col.students
    ]
    if use_mtime:
        for c in col.students.values():
            if c.submitted_at is None:
                newest = max((download / n).stat().st_mtime for n in c.source)
                c.submitted_at = datetime.fromtimestamp(newest, UTC)
    (dest / MANIFEST).write_text(json.dumps(col.as_json(), indent=1) + "\n", encoding="utf-8")
    return col


def roster_missing(submissions: Path) -> list[dict] | None:
    """The roster's students `collect` found no submission for ({student, name}), or None when
    `submissions` is not a folder `collect` wrote."""
    try:
        data = json.loads((Path(submissions) / MANIFEST).read_text(encoding="utf-8"))
        return [{"student": str(m["student"]), "name": str(m.get("name") or "")} for m in data["missing"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def submission_times(submissions: Path) -> dict[str, datetime | None]:
    """The submission times `collect` recorded beside the submissions, by student id."""
    if not Path(submissions).is_dir():
        raise StaffFileError(f"{submissions}: no such folder (--submissions: the folder `collect` wrote)")
    path = Path(submissions) / MANIFEST
    if not path.is_file():
        raise StaffFileError(
            f"{submissions}: not a folder `collect` wrote (no {MANIFEST}): its submission times are unknown"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))["students"]
        return {
            s: parse_time(v["submitted_at"], f"{path}: {s}") if v.get("submitted_at") else None
            for s, v in data.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise StaffFileError(f"{path}: not a manifest written by `collect`") from None
