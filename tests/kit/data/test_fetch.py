"""data/fetch.py against a local HTTP server (never the internet): resume, Range ignored,
checksum mismatch, gzip, progress output, offline message."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from data import fetch
from grader.paths import KIT_ROOT as ROOT


class _Handler(BaseHTTPRequestHandler):
    """Serves server.files; misbehaves as server.cfg says."""

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        server = self.server
        server.requests.append((self.path, self.headers.get("Range")))
        if self.path.startswith("/hop/"):  # like Hugging Face: 302 to the CDN, digest on the 302
            target = "/" + self.path[len("/hop/") :]
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("X-Linked-Etag", f'"{hashlib.sha256(server.files[target]).hexdigest()}"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = server.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = 0
        wanted = self.headers.get("Range")
        if wanted and not server.ignore_range:
            start = int(wanted.removeprefix("bytes=").rstrip("-"))
            if start >= len(body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        payload = body[start:]
        self.send_header("Content-Length", str(len(payload)))
        if server.etag is not None:
            self.send_header("ETag", f'"{server.etag}"')
        elif not self.path.startswith("/plain/"):
            self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
        self.end_headers()
        if server.drops:  # send part of the body, then cut the connection
            cut = server.drops.pop(0)
            self.wfile.write(payload[:cut])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.wfile.write(payload)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.files, httpd.requests, httpd.drops = {}, [], []
    httpd.ignore_range, httpd.etag = False, None
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    httpd.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd
    httpd.shutdown()
    httpd.server_close()


# Not compressible, several CHUNKs long, so a cut lands mid-transfer.
PAYLOAD = b"".join(hashlib.sha256(str(i).encode()).digest() for i in range(100_000))


def _dataset(remote, sha256=None):
    return fetch.Dataset("sample", remote, sha256)


def _fetch(server, tmp_path, remote, sha256=None, **kw):
    kw.setdefault("stream", io.StringIO())
    return fetch.fetch(_dataset(remote, sha256), tmp_path, server.base, pause=0, **kw)


def test_plain_download_is_verified_against_etag_and_recorded(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    out = _fetch(server, tmp_path, "a/data.txt")
    assert out == tmp_path / "data.txt" and out.read_bytes() == PAYLOAD
    entry = json.loads((tmp_path / "manifest.json").read_text())["sample"]
    assert entry["sha256"] == hashlib.sha256(PAYLOAD).hexdigest()
    assert entry["verified_by"] == "etag" and entry["bytes"] == len(PAYLOAD)
    assert not list(tmp_path.glob("*.part"))


def test_second_run_skips_a_verified_file(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    _fetch(server, tmp_path, "a/data.txt")
    stream = io.StringIO()
    _fetch(server, tmp_path, "a/data.txt", stream=stream)
    assert len(server.requests) == 1 and "already downloaded" in stream.getvalue()


def test_digest_on_a_redirect_is_used(server, tmp_path):
    server.files["/cdn/data.txt"] = PAYLOAD
    server.etag = "not-a-digest"  # the CDN's ETag is useless; the 302's X-Linked-Etag is not
    server.drops = [1_200_000]
    _fetch(server, tmp_path, "hop/cdn/data.txt")
    assert server.requests[2:] == [
        ("/hop/cdn/data.txt", "bytes=1200000-"),
        ("/cdn/data.txt", "bytes=1200000-"),
    ]  # Range survives the 302
    entry = json.loads((tmp_path / "manifest.json").read_text())["sample"]
    assert entry["verified_by"] == "etag"
    assert entry["sha256"] == hashlib.sha256(PAYLOAD).hexdigest()


def test_dropped_connection_is_resumed_with_range(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    server.drops = [1_000_000, 500_000]
    stream = io.StringIO()
    out = _fetch(server, tmp_path, "a/data.txt", stream=stream)
    assert out.read_bytes() == PAYLOAD
    assert [r for _, r in server.requests] == [None, "bytes=1000000-", "bytes=1500000-"]
    assert stream.getvalue().count("resuming") == 2


def test_part_file_left_by_an_earlier_run_is_resumed(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    server.drops = [700_000]
    with pytest.raises(fetch.FetchError, match="run again to resume"):
        _fetch(server, tmp_path, "a/data.txt", attempts=1)
    assert (tmp_path / "data.txt.part").stat().st_size == 700_000
    out = _fetch(server, tmp_path, "a/data.txt")
    assert out.read_bytes() == PAYLOAD and server.requests[-1][1] == "bytes=700000-"


def test_server_ignoring_range_restarts_cleanly(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    server.ignore_range = True
    server.drops = [900_000]
    out = _fetch(server, tmp_path, "a/data.txt")
    assert server.requests[1][1] == "bytes=900000-"  # asked to resume, got the whole file
    assert out.read_bytes() == PAYLOAD  # and did not append it to the first 900 kB


def test_complete_part_file_answered_416_is_verified(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    (tmp_path / "data.txt.part").write_bytes(PAYLOAD)
    out = _fetch(server, tmp_path, "a/data.txt")
    assert out.read_bytes() == PAYLOAD and server.requests == [("/a/data.txt", f"bytes={len(PAYLOAD)}-")]


def test_etag_mismatch_deletes_the_part_and_says_so(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    server.etag = "ab" * 32
    with pytest.raises(fetch.FetchError) as error:
        _fetch(server, tmp_path, "a/data.txt")
    message = str(error.value)
    assert "does not match" in message and "ab" * 32 in message and "\n" not in message
    assert not (tmp_path / "data.txt.part").exists() and not (tmp_path / "data.txt").exists()
    assert not (tmp_path / "manifest.json").exists()


def test_pinned_digest_wins_over_the_server(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    with pytest.raises(fetch.FetchError, match="pinned"):
        _fetch(server, tmp_path, "a/data.txt", sha256="cd" * 32)
    server.etag = "ab" * 32  # wrong, but the pin is right
    _fetch(server, tmp_path, "a/data.txt", sha256=hashlib.sha256(PAYLOAD).hexdigest())
    entry = json.loads((tmp_path / "manifest.json").read_text())["sample"]
    assert entry["verified_by"] == "pinned"


def test_no_digest_anywhere_is_recorded_as_unverified(server, tmp_path):
    server.files["/plain/data.txt"] = PAYLOAD
    stream = io.StringIO()
    _fetch(server, tmp_path, "plain/data.txt", stream=stream)
    entry = json.loads((tmp_path / "manifest.json").read_text())["sample"]
    assert entry["verified_by"] == "unverified" and "no checksum" in stream.getvalue()


def test_gz_is_verified_then_decompressed(server, tmp_path):
    text = ("Once upon a time there was a text file.\n" * 50_000).encode()
    packed = gzip.compress(text, mtime=0)
    server.files["/owt/sample.txt.gz"] = packed
    server.drops = [len(packed) // 2]
    out = _fetch(server, tmp_path, "owt/sample.txt.gz")
    assert out == tmp_path / "sample.txt" and out.read_bytes() == text
    assert not (tmp_path / "sample.txt.gz").exists()
    entry = json.loads((tmp_path / "manifest.json").read_text())["sample"]
    assert entry["sha256"] == hashlib.sha256(packed).hexdigest()
    assert entry["output_bytes"] == len(text)


def test_corrupt_gz_with_matching_digest_fails_clearly(server, tmp_path):
    server.files["/owt/bad.txt.gz"] = b"this is not gzip at all"
    with pytest.raises(fetch.FetchError, match="not a valid gzip file"):
        _fetch(server, tmp_path, "owt/bad.txt.gz")
    assert not (tmp_path / "bad.txt").exists() and not (tmp_path / "bad.txt.part").exists()


def test_progress_lines_when_not_a_terminal(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    stream = io.StringIO()
    _fetch(server, tmp_path, "a/data.txt", stream=stream, tty=False)
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and len(lines) >= 3
    assert all("MB/s" in line and "%" in line for line in lines)
    percents = [float(line.split("%")[0].split()[-1]) for line in lines]
    assert percents == sorted(percents) and percents[0] < 50
    assert lines[-1].startswith("data.txt  3.2/3.2 MB  100.0%")


def test_progress_redraws_one_line_on_a_terminal(server, tmp_path):
    server.files["/a/data.txt"] = PAYLOAD
    stream = io.StringIO()
    _fetch(server, tmp_path, "a/data.txt", stream=stream, tty=True)
    output = stream.getvalue()
    assert output.startswith("\r") and output.endswith("\n") and output.count("\n") == 1
    assert "ETA" in output or "100.0%" in output


def test_progress_line_format():
    ticks = iter([0.0, 0.0, 2.0])
    progress = fetch.Progress("f.txt", io.StringIO(), tty=False, clock=lambda: next(ticks))
    progress.start(0, 10_000_000)
    assert progress.line(4_000_000) == "f.txt  4.0/10.0 MB   40.0%  2.0 MB/s  ETA 3s"


def test_plain_progress_without_a_size_still_reports_every_30_seconds():
    now = [0.0]
    stream = io.StringIO()
    progress = fetch.Progress("f.txt", stream, tty=False, clock=lambda: now[0])
    progress.start(0, None)
    for second in range(1, 95):
        now[0] = float(second)
        progress.update(second * 1_000_000)
    assert stream.getvalue().splitlines() == [
        "f.txt  30.0 MB  1.0 MB/s",
        "f.txt  60.0 MB  1.0 MB/s",
        "f.txt  90.0 MB  1.0 MB/s",
    ]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_cli_prints_one_line_and_fails(tmp_path):
    base = f"http://127.0.0.1:{_closed_port()}"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "data" / "fetch.py"),
            "--only",
            "tinystories-valid",
            "--dest",
            str(tmp_path),
            "--base-url",
            base,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("could not reach 127.0.0.1:")
    assert done.stderr.rstrip().endswith("; the kit works without these files")


def test_http_error_is_one_clear_line(server, tmp_path):
    with pytest.raises(fetch.FetchError, match="HTTP 404"):
        _fetch(server, tmp_path, "missing/file.txt")


def test_cli_rejects_unknown_dataset_name(tmp_path):
    assert fetch.BY_NAME.keys() == {"tinystories-train", "tinystories-valid", "owt-train", "owt-valid"}
    with pytest.raises(SystemExit) as exit_:
        fetch.main(["--only", "nope", "--dest", str(tmp_path)])
    assert exit_.value.code == 2
