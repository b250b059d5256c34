"""The class roster: who is enrolled, and how to recognise their submissions.

A CSV with a header row. `student_id` and `name` are required; `email`, `lms_id` (the LMS's own
user id: Canvas's numeric id), `sis_login_id`, `section`, `folder` (a submission folder name other
than the student id) and `submitted_at` (ISO 8601 with offset, when the LMS export gives no times)
are optional.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import StaffFileError
from .timestamps import parse_time

COLUMNS = ("student_id", "name", "email", "lms_id", "sis_login_id", "section", "folder", "submitted_at")
REQUIRED = ("student_id", "name")


@dataclass(frozen=True)
class Student:
    student_id: str
    name: str
    email: str = ""
    lms_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    folder: str = ""
    submitted_at: datetime | None = None


@dataclass(frozen=True)
class Roster:
    students: tuple[Student, ...]

    def by_id(self) -> dict[str, Student]:
        return {s.student_id: s for s in self.students}

    def find(
        self, *, folder: str = "", lms_id: str = "", email: str = "", student_id: str = ""
    ) -> Student | None:
        """The one student these keys name, or None. Keys are tried from the most specific."""
        for s in self.students:
            if folder and folder in (s.folder, s.student_id):
                return s
        for s in self.students:
            if (lms_id and s.lms_id == lms_id) or (student_id and s.student_id == student_id):
                return s
        for s in self.students:
            if email and s.email and s.email.lower() == email.lower():
                return s
        return None


def load(path: Path) -> Roster:
    """Read and check a roster CSV: every student id once, every column known."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # Excel's byte-order mark is fine
    except (OSError, UnicodeDecodeError) as e:
        raise StaffFileError(f"{where}: cannot read the roster ({e})") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise StaffFileError(f"{where}: the roster needs the column(s) {', '.join(missing)}")
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise StaffFileError(
            f"{where}: unknown roster column(s) {', '.join(unknown)} (known: {', '.join(COLUMNS)})"
        )
    students, seen = [], set()
    for n, row in enumerate(reader, start=2):
        row = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
        sid = row.get("student_id", "")
        if not sid:
            raise StaffFileError(f"{where}:{n}: no student_id")
        if sid in seen:
            raise StaffFileError(f"{where}:{n}: student {sid!r} is on the roster twice")
        seen.add(sid)
        at = row.get("submitted_at", "")
        students.append(
            Student(
                student_id=sid,
                name=row.get("name", ""),
                email=row.get("email", ""),
                lms_id=row.get("lms_id", ""),
                sis_login_id=row.get("sis_login_id", ""),
                section=row.get("section", ""),
                folder=row.get("folder", ""),
                submitted_at=parse_time(at, f"{where}:{n}: submitted_at") if at else None,
            )
        )
    return Roster(tuple(students))
