"""Shared by the report tests: what headless Chromium shows of a report.html, and a small DOM."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

CHROMIUM = next(
    (
        p
        for p in ("/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or "")
        if p and Path(p).exists()
    ),
    None,
)


def dump_dom(html_file: Path, *, window: str | None = None) -> str:
    """The DOM after headless Chromium loaded the page, with the network left off; `window`:
    the window's size ("1366,900"), for what a screen of that width shows."""
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                *([f"--window-size={window}"] if window else []),
                "--dump-dom",
                html_file.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


class Dom(HTMLParser):
    """Just enough of the DOM to assert on: elements with their attributes, and the visible text."""

    def __init__(self, text):
        super().__init__()
        self.elements, self.text, self._skip = [], [], 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._skip += tag in ("style", "title")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "title") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)

    def find(self, tag, **attrs):
        return [
            a
            for t, a in self.elements
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]
