"""Shared tools of the hostile catalogue entries (copied into each one's `bpe/` as `_hostile.py`).

A hostile entry is the reference solution plus one attack. To make its grade exact, an attack
usually also gives up one part honestly (`give_up_part1`): if the attack forged anything, the
grade would come out higher than that, and the catalogue test catches it.
"""
from __future__ import annotations

import os
import sys

PKG = __package__


def package():
    return sys.modules[PKG]


def patch_public(name: str, new, *, package_only: bool = False):
    """Replace a public function where it is exported (the package, and unless `package_only` its
    defining module), nowhere else: the solution's own internal calls keep the honest code."""
    pkg = package()
    old = getattr(pkg, name)
    setattr(pkg, name, new)
    home = sys.modules.get(getattr(old, "__module__", "") or "")
    if not package_only and home is not None and getattr(home, name, None) is old:
        setattr(home, name, new)
    return old


def give_up_part1():
    """Honestly lose every test that trains a CharBPE."""
    def train(cls, text, num_merges):
        raise NotImplementedError("CharBPE.train is left out on purpose")
    package().CharBPE.train = classmethod(train)


def _ancestors(path):
    try:
        path = os.path.abspath(path)
    except Exception:
        return []
    out = []
    while True:
        out.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            return out
        path = parent


def _proc_paths():
    """Every path the process table leaks: cwds, exes and command-line arguments of all processes."""
    found = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids + ["self", str(os.getppid())]:
        for link in ("cwd", "exe", "root"):
            try:
                found.append(os.readlink(f"/proc/{pid}/{link}"))
            except OSError:
                pass
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                found += [a.decode(errors="replace") for a in f.read().split(b"\0") if a.startswith(b"/")]
        except OSError:
            pass
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                for kv in f.read().split(b"\0"):
                    v = kv.partition(b"=")[2].decode(errors="replace")
                    found += [x for x in v.split(":") if x.startswith("/")]
        except OSError:
            pass
    return found


def guessed_paths():
    seeds = [os.getcwd(), __file__, sys.executable, sys.prefix, *sys.path]
    seeds += [v for v in os.environ.values() if v.startswith("/")]
    seeds += _proc_paths()
    seen, out = set(), []
    for s in seeds:
        for a in _ancestors(s):
            if a not in seen:
                seen.add(a)
                out.append(a)
    return out


def kit_roots():
    """Directories that look like the kit (a grader next to the graded tests or the solution)."""
    roots = []
    for p in guessed_paths():
        if os.path.isdir(os.path.join(p, "grader")) and (
            os.path.isdir(os.path.join(p, "tests", "graded")) or os.path.isdir(os.path.join(p, "solution", "bpe"))
        ):
            roots.append(p)
    return roots


def out_dirs():
    """Where the grader probably writes its reports: `--out X` of any process, plus the usual names."""
    dirs = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = [a.decode(errors="replace") for a in f.read().split(b"\0")]
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        for i, a in enumerate(args[:-1]):
            if a == "--out" or a == "--out-dir":
                dirs.append(os.path.join(cwd, args[i + 1]))
            elif a.startswith("--out="):
                dirs.append(os.path.join(cwd, a.split("=", 1)[1]))
    for root in kit_roots():
        dirs.append(os.path.join(root, "results"))
    dirs += [os.getcwd(), os.path.join(os.getcwd(), "results"), "/autograder/results", "/tmp/results"]
    return list(dict.fromkeys(dirs))


def try_write(path: str, data: str, mode: str = "w") -> bool:
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, mode) as f:
            f.write(data)
        return True
    except Exception:
        return False


MARK = "/tmp/bpe-kit-pwned"


def mark(name: str, what: str = "") -> None:
    """Leave a trace outside any sandbox (`/tmp/bpe-kit-pwned-*`): the catalogue test looks for it."""
    try_write(f"{MARK}-{name}", what + "\n", "a")
