"""What every grading of a hostile catalogue row is checked for, however it was graded (`bpe-kit
grade` as root or as an ordinary user: test_catalogue_hostile.py; the class farm as an ordinary
user: test_catalogue_farm.py).

- its graded tests lose exactly the points the row's catalogue entry says it honestly loses;
- no connection reached a listener on 127.0.0.1 (`Listener`);
- the kit is untouched (`tainted_kit_files`);
- nothing of the kit appears in what the student is shown (`kit_shown`).
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import catalogue

from grader import rubric
from grader.paths import DEFAULT_RUBRIC, KIT_ROOT

HOSTILE = [e for e in catalogue.load() if e.kind == "hostile"]
# Graded as an ordinary user too: every hostile row, and one correct row that starts processes.
AS_USER = [*HOSTILE, catalogue.by_name("pool_spawn")]
ID_OF = {e.number: e.id for e in rubric.load(DEFAULT_RUBRIC)}
MARKERS = (b"BPE-KIT-TAMPERED", b"BPE-KIT-DAEMON", b"bpe-kit-network-probe")
WATCHED = ("grader", "tests", "data/fixtures", "solution")
# The kit's own files that name the markers (besides the catalogue's sources): this one.
NAMING_MARKERS = (Path(__file__).name,)
# What would show the kit to a student: its path, the reference's package, the reference's import.
KIT_SIGNS = (str(KIT_ROOT), "solution/bpe", "solution imported from")


class Listener:
    """A TCP listener on 127.0.0.1 that counts connections (none may ever arrive)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> int:
        self._stop.set()
        self._thread.join()
        self.sock.close()
        return self.connections


def tainted_kit_files() -> list[str]:
    """Kit files carrying a hostile marker (the catalogue's own sources excluded)."""
    found = []
    for top in WATCHED:
        for path in (KIT_ROOT / top).rglob("*"):
            rel = path.relative_to(KIT_ROOT)
            if "submissions" in rel.parts or rel.name in NAMING_MARKERS or not path.is_file():
                continue
            if path.name.startswith("daemon_was_here"):
                found.append(str(path))
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(m in data for m in MARKERS):
                found.append(str(path))
    return found


def kit_shown(shown: object) -> list[str]:
    """The signs of the kit (KIT_SIGNS) in what a student is shown (any JSON-able value)."""
    text = json.dumps(shown)
    return [sign for sign in KIT_SIGNS if sign in text]


def check_tests(entry: catalogue.Entry, tests: list[dict]) -> float:
    """Each results.json-shaped test lost its points exactly when the row must fail it, and its
    feedback holds the words the row names; returns the row's honest score over these tests."""
    assert tests, f"{entry.name}: nothing was graded"
    wrong = []
    for t in tests:
        test_id = ID_OF[t["number"]]
        lost = t["score"] < t["max_score"]
        if lost != entry.must_fail(test_id):
            first = " / ".join(t["output"].strip().splitlines()[:3])
            wrong.append(f"{t['number']} {test_id}: {'lost' if lost else 'kept'} its points. {first}")
    assert not wrong, f"{entry.name} ({entry.why}):\n" + "\n".join(wrong)
    for t in tests:
        words = entry.feedback.get(ID_OF[t["number"]])
        assert words is None or words in t["output"], (
            f"{entry.name}: {t['number']} should say {words!r}:\n{t['output']}"
        )
    honest = sum(t["max_score"] for t in tests if not entry.must_fail(ID_OF[t["number"]]))
    if entry.score is not None:
        assert honest == entry.score, f"{entry.name}: the catalogue says {entry.score}, its tests {honest}"
    return honest
