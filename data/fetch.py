"""Download the real datasets (TinyStories V2, an OpenWebText sample) into data/downloads/.

The kit never needs these files: tests, grading and labs use the generated corpus
(data/corpus.py). They are for students who want to train on real text, so this script is
built for slow, flaky connections and multi-gigabyte files:

- resumable: bytes go to NAME.part; a rerun (or an automatic retry after a dropped connection)
  asks for the rest with an HTTP Range request. A server that ignores Range answers 200 with
  the whole file, and we restart the .part cleanly instead of appending a second copy;
- checksummed: the sha256 of the downloaded bytes must equal a pinned value when we know one,
  else the server's ETag / X-Linked-Etag when it is a sha256 (Hugging Face sends the file's
  sha256 there for large files). A mismatch deletes the .part, since resuming a corrupt file
  can never fix it. The verified digest is recorded in downloads/manifest.json;
- .gz files are decompressed after verification (and the .gz removed, like gunzip does);
- standard library only, so it runs before any dependency is installed.

Usage: python data/fetch.py [--only NAME ...] [--dest DIR] [--base-url URL]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import http.client
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
DEFAULT_DEST = DATA_DIR / "downloads"
DEFAULT_BASE_URL = "https://huggingface.co/datasets"
CHUNK = 1 << 20
TIMEOUT_S = 60
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Dataset:
    name: str
    remote: str  # path under the base URL
    sha256: str | None = None  # pinned digest of the downloaded bytes, when known

    @property
    def filename(self) -> str:
        return self.remote.rsplit("/", 1)[-1]

    @property
    def output(self) -> str:
        """The file the user ends up with (decompressed when the download is .gz)."""
        return self.filename[:-3] if self.filename.endswith(".gz") else self.filename


# Small files first, so an interrupted first run still leaves something useful.
# No digests are pinned yet: Hugging Face's X-Linked-Etag carries the sha256 of each file.
DATASETS = [
    Dataset("tinystories-valid", "roneneldan/TinyStories/resolve/main/TinyStoriesV2-GPT4-valid.txt"),
    Dataset("tinystories-train", "roneneldan/TinyStories/resolve/main/TinyStoriesV2-GPT4-train.txt"),
    Dataset("owt-valid", "stanford-cs336/owt-sample/resolve/main/owt_valid.txt.gz"),
    Dataset("owt-train", "stanford-cs336/owt-sample/resolve/main/owt_train.txt.gz"),
]
BY_NAME = {d.name: d for d in DATASETS}


class FetchError(Exception):
    """A failure explained in one line for the user; never shown with a traceback."""


class Interrupted(Exception):
    """The connection dropped mid-transfer: worth retrying, the .part keeps what arrived."""


# --------------------------------------------------------------------------------------------
# Progress: one redrawn line on a terminal, a plain line every 10% otherwise (logs, CI).


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Progress:
    """Bytes, %, MB/s and ETA of one transfer. Speed counts only this run's bytes, not the
    resumed ones already on disk. Not on a terminal: a line per 10% step, or every 30 s."""

    PLAIN_EVERY_S = 30.0

    def __init__(self, label: str, stream=None, tty: bool | None = None, clock=time.monotonic):
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.start(0, None)

    def start(self, done: int, total: int | None) -> None:
        self.first, self.total = done, total
        self.started = self.last_shown = self.clock()
        self.next_step = 10 if not total else done * 100 // total // 10 * 10 + 10

    def line(self, done: int) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = (done - self.first) / elapsed
        text = f"{self.label}  {done / 1e6:,.1f}"
        if self.total:
            text += f"/{self.total / 1e6:,.1f} MB  {100 * done / self.total:5.1f}%"
        else:
            text += " MB"
        text += f"  {rate / 1e6:.1f} MB/s"
        if self.total and rate > 0:
            text += f"  ETA {_duration((self.total - done) / rate)}"
        return text

    def update(self, done: int) -> None:
        now = self.clock()
        if self.tty:
            if now - self.last_shown >= 0.1:
                self.last_shown = now
                self.stream.write("\r" + self.line(done) + "\033[K")
                self.stream.flush()
            return
        stepped = self.total and done * 100 >= self.next_step * self.total and done < self.total
        if stepped or now - self.last_shown >= self.PLAIN_EVERY_S:
            self.last_shown = now
            if self.total:
                self.next_step = done * 100 // self.total // 10 * 10 + 10
            print(self.line(done), file=self.stream, flush=True)

    def finish(self, done: int) -> None:
        prefix = "\r" if self.tty else ""
        print(prefix + self.line(done) + ("\033[K" if self.tty else ""), file=self.stream, flush=True)


# --------------------------------------------------------------------------------------------
# HTTP.


class _RecordRedirects(urllib.request.HTTPRedirectHandler):
    """Keeps the headers of redirect responses: Hugging Face puts X-Linked-Etag (the sha256)
    on its 302 to the CDN, and urllib would otherwise only show us the CDN's headers."""

    def __init__(self) -> None:
        self.headers = []

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        self.headers.append(headers)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _digest_in(headers_list) -> str | None:
    """The first header value that is a bare sha256 (ETags come quoted, maybe weak: W/"...")."""
    for headers in headers_list:
        for key in ("X-Linked-Etag", "ETag"):
            value = (headers.get(key) or "").strip()
            value = value.removeprefix("W/").strip('"').lower()
            if re.fullmatch(r"[0-9a-f]{64}", value):
                return value
    return None


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


def _open(url: str, offset: int):
    """GET url from byte `offset`; returns (response or None if 416, headers of every hop)."""
    request = urllib.request.Request(
        url, headers={"User-Agent": "bpe-kit-fetch/1", "Accept-Encoding": "identity"}
    )
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    redirects = _RecordRedirects()
    try:
        response = urllib.request.build_opener(redirects).open(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as error:
        if error.code == 416 and offset:  # nothing left to send: the .part is already whole
            return None, redirects.headers + [error.headers]
        raise FetchError(f"{url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise FetchError(
            f"could not reach {_host(url)}: {reason}; the kit works without these files"
        ) from None
    return response, redirects.headers + [response.headers]


def _hash_into(hasher, path: Path) -> None:
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            hasher.update(block)


def _transfer(url: str, part: Path, progress: Progress) -> tuple[str, int, list]:
    """One attempt: continue `part` from its current size. Returns (sha256, size, headers)."""
    offset = part.stat().st_size if part.exists() else 0
    response, headers = _open(url, offset)
    hasher = hashlib.sha256()
    if response is None:  # 416: hash what we have and let the caller verify it
        _hash_into(hasher, part)
        return hasher.hexdigest(), offset, headers
    with response:
        length = response.headers.get("Content-Length")
        total = None
        if response.status == 206:
            match = re.fullmatch(r"bytes (\d+)-\d+/(\d+|\*)", response.headers.get("Content-Range", ""))
            if not match or int(match.group(1)) != offset:
                raise FetchError(f"{url}: the server answered a resume request with a wrong range")
            total = int(match.group(2)) if match.group(2) != "*" else None
        else:  # 200: the server ignored Range (or we asked for none): start over from byte 0
            offset = 0
            total = int(length) if length and length.isdigit() else None
        mode = "ab" if offset else "wb"
        if offset:  # the digest covers the whole file, so re-read what is already there
            _hash_into(hasher, part)
        done = offset
        progress.start(done, total)
        with open(part, mode) as out:
            try:
                while block := response.read(CHUNK):
                    out.write(block)
                    hasher.update(block)
                    done += len(block)
                    progress.update(done)
            except (http.client.HTTPException, ConnectionError, TimeoutError) as error:
                raise Interrupted(f"{type(error).__name__} at byte {done:,}") from None
        if total is not None and done != total:
            raise Interrupted(f"connection closed at byte {done:,} of {total:,}")
    progress.finish(done)
    return hasher.hexdigest(), done, headers


def download(
    url: str,
    part: Path,
    pinned: str | None = None,
    *,
    attempts: int = 4,
    pause: float = 2.0,
    stream=None,
    tty: bool | None = None,
) -> dict:
    """Download url into `part` (resuming it), verify it, return {"sha256", "bytes", "verified_by"}.

    A dropped connection is retried `attempts` times, each resuming where the last one stopped.
    On a digest mismatch the .part is deleted and FetchError raised. On success `part` holds
    the verified bytes (the caller renames it).
    """
    progress = Progress(part.name.removesuffix(".part"), stream, tty)
    for attempt in range(1, attempts + 1):
        try:
            digest, size, headers = _transfer(url, part, progress)
            break
        except Interrupted as error:
            if attempt == attempts:
                raise FetchError(
                    f"{url}: download interrupted ({error}) {attempts} times; run again to resume"
                ) from None
            if progress.tty:  # end the redrawn progress line first
                progress.stream.write("\n")
            print(f"{progress.label}: interrupted ({error}); resuming", file=progress.stream)
            time.sleep(pause * attempt)
    expected = pinned or _digest_in(headers)
    source = "pinned" if pinned else "etag" if expected else "unverified"
    if expected and digest != expected:
        part.unlink()
        raise FetchError(
            f"{url}: sha256 {digest} does not match the expected {expected} "
            f"({'pinned in data/fetch.py' if pinned else 'from the server'}); "
            f"deleted {part}, run again to download it afresh"
        )
    if not expected:
        print(
            f"{progress.label}: no checksum to compare with (recorded sha256 {digest})", file=progress.stream
        )
    return {"sha256": digest, "bytes": size, "verified_by": source}


# --------------------------------------------------------------------------------------------
# Datasets on disk.


def _load_manifest(dest: Path) -> dict:
    try:
        return json.loads((dest / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, OSError):
        print(f"warning: ignoring unreadable {dest / MANIFEST}", file=sys.stderr)
        return {}


def _save_manifest(dest: Path, manifest: dict) -> None:
    tmp = dest / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, dest / MANIFEST)


def _gunzip(source: Path, target: Path, stream=None, tty: bool | None = None) -> int:
    """Decompress via target.part then rename, so a half-written file never looks finished."""
    partial = target.with_name(target.name + ".part")
    progress = Progress(f"decompressing {source.name}", stream, tty)
    progress.start(0, source.stat().st_size)
    size = 0
    try:
        with open(source, "rb") as raw, gzip.GzipFile(fileobj=raw) as unzipped, open(partial, "wb") as out:
            while block := unzipped.read(CHUNK):
                out.write(block)
                size += len(block)
                progress.update(raw.tell())
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        partial.unlink(missing_ok=True)
        raise FetchError(f"{source}: not a valid gzip file ({error})") from None
    progress.finish(source.stat().st_size)
    os.replace(partial, target)
    return size


def fetch(
    dataset: Dataset,
    dest: Path = DEFAULT_DEST,
    base_url: str = DEFAULT_BASE_URL,
    *,
    attempts: int = 4,
    pause: float = 2.0,
    stream=None,
    tty: bool | None = None,
) -> Path:
    """Make sure dest/<dataset.output> exists and was verified; return its path."""
    dest.mkdir(parents=True, exist_ok=True)
    manifest = _load_manifest(dest)
    output = dest / dataset.output
    entry = manifest.get(dataset.name)
    if entry and output.is_file() and output.stat().st_size == entry.get("output_bytes"):
        print(
            f"{output.name}: already downloaded ({entry['verified_by']} sha256 {entry['sha256'][:12]}…)",
            file=sys.stderr if stream is None else stream,
        )
        return output
    url = base_url.rstrip("/") + "/" + dataset.remote
    downloaded = dest / dataset.filename
    part = dest / (dataset.filename + ".part")
    record = download(url, part, dataset.sha256, attempts=attempts, pause=pause, stream=stream, tty=tty)
    os.replace(part, downloaded)
    record.update(url=url, file=dataset.filename, output=dataset.output)
    if downloaded != output:
        record["output_bytes"] = _gunzip(downloaded, output, stream, tty)
        downloaded.unlink()
    else:
        record["output_bytes"] = record["bytes"]
    manifest[dataset.name] = record
    _save_manifest(dest, manifest)
    return output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Download TinyStories V2 and an OpenWebText "
        "sample (optional: the kit works without them)."
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=list(BY_NAME),
        metavar="NAME",
        help=f"fetch only this dataset (repeatable): {', '.join(BY_NAME)}",
    )
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="download directory")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL, help="a mirror of the datasets")
    args = parser.parse_args(argv)
    chosen = [BY_NAME[name] for name in args.only] if args.only else DATASETS
    try:
        for dataset in chosen:
            path = fetch(dataset, args.dest, args.base_url)
            print(f"{dataset.name}: {path}")
    except FetchError as error:
        print(error, file=sys.stderr)
        return 1
    except OSError as error:  # disk full, permission denied...
        print(f"could not write {error.filename or args.dest}: {error.strerror or error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: run the same command again to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
