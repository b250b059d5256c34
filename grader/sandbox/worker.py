"""The sandboxed worker: the only process that ever imports the submission.

Started by grader/sandbox/process.py (its command: box.Sandbox.command) as
`python -S -s -P -B -c <boot>` with a scrubbed environment; stdlib only, because this file and wire.py are copied into the sandbox and run there. Before the student's
code exists it (1) hides the kit behind tmpfs mounts when it runs as root in fresh namespaces (the
system's root, or an ordinary user's in a user namespace), (2) sets rlimits, (3) drops to an
unprivileged uid (in a user namespace: uid 65534 of a second one, without capabilities). Then it serves requests, one JSON line each, on
the pipe fds named in its config; stdout/stderr belong to the student's prints.
"""

from __future__ import annotations

import io
import json
import os
import resource
import sys
import traceback
import types
from collections.abc import Callable

from . import _linux, forker, importing, wire
from ._linux import MS_BIND, MS_NODEV, MS_NOSUID, MS_RDONLY, MS_REMOUNT
from .call_words import child_note

BATCH = 8192
CENSUS_CAP = 200  # public names a stub census lists at most (worker.stub_census): no package has more


# ------------------------------------------------------------------------------------ isolation
def apply_mounts(steps: list[list[str]]) -> None:
    """Run the mount plan computed by the trusted side (see box.Sandbox.mount_plan)."""
    for op, *args in steps:
        if op == "mkdir":
            os.makedirs(args[0], exist_ok=True)
        elif op == "tmpfs":
            _linux.mount("tmpfs", args[0], "tmpfs", MS_NOSUID | MS_NODEV, args[1])
        elif op == "file":  # an empty file to bind a device onto
            os.close(os.open(args[0], os.O_CREAT | os.O_WRONLY, 0o644))
        elif op == "umount":
            _linux.umount(args[0])
        elif op == "bind":  # ["bind", source, target, "ro" | "rw" | "dev"]
            # Devices keep the flags of the host's /dev (not nodev); recursive, as a user namespace
            # may not bind a folder without the mounts inside it.
            if args[2] == "dev":
                _linux.mount(args[0], args[1], None, MS_BIND | _linux.MS_REC, None)
                continue
            _linux.mount(args[0], args[1], None, MS_BIND, None)
            flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | _linux.kept_flags(args[1])
            _linux.mount(None, args[1], None, flags | (MS_RDONLY if args[2] == "ro" else 0), None)
        else:
            raise ValueError(f"unknown mount step {op!r}")


def confine(config: dict) -> None:
    # Die with the grader, even one killed outright. Set here, not in a preexec_fn (unsafe in a
    # grader with threads); under namespaces `setpriv` set it on `unshare` before its exec.
    _linux.die_with_parent(config.get("parent_pid"))
    try:
        os.setsid()  # its own session and process group (already so unless under unshare)
    except OSError:
        pass
    userns_uid = config.get("userns_uid")  # an ordinary user's worker: see box.py
    proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY) if userns_uid is not None else -1
    if config.get("zygote"):  # its PID namespace's own /proc (`unshare --mount-proc`): forker.py
        config["proc"] = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
    apply_mounts(config.get("mounts", []))
    for name, (soft, hard) in config.get("rlimits", {}).items():
        resource.setrlimit(getattr(resource, name), within_hard_limit(getattr(resource, name), soft, hard))
    uid = config.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setgid(config["gid"])
        os.setuid(uid)
        # Changing uid cleared the "die with the parent" signal: renew it, so a grader killed
        # outright still takes this worker (and, through `unshare --kill-child`, its namespace) down.
        _linux.die_with_parent()
    if userns_uid is not None:
        _linux.enter_user_namespace(userns_uid, proc)
        _linux.die_with_parent()
    os.chdir(config["scratch"])


def within_hard_limit(which: int, soft: int, hard: int) -> tuple[int, int]:
    """(soft, hard), lowered to the hard limit this process already has: raising one needs
    CAP_SYS_RESOURCE, which root lacks in many containers, and a lower cap set outside stays."""
    held = resource.getrlimit(which)[1]
    if held != resource.RLIM_INFINITY:
        hard = min(hard, held)
    return min(soft, hard), hard


# ------------------------------------------------------------------------------------ serving
class Worker:
    def __init__(self, config: dict, rfile: io.BufferedReader, wfile: io.BufferedWriter) -> None:
        self.config, self.rfile, self.wfile = config, rfile, wfile
        self.module = None
        self.objects: dict[int, object] = {}
        self.next_id = 1
        self.submission = os.path.realpath(config["submission"]) + os.sep

    # -- the submission ------------------------------------------------------------------
    def bpe(self) -> types.ModuleType:
        """The student's package, imported once; if it does not import, what of it does
        (grader/sandbox/importing.py), so a broken module costs only the tests that need it."""
        if self.module is None:
            self.module = importing.import_package(self.config["submission"])
        return self.module

    def handle(self, value: object) -> dict | None:
        """Objects that are not data travel as handles: the trusted side calls back through them."""
        if isinstance(value, (int, float, str, bytes, bytearray, dict, list, tuple)):
            return None
        module = getattr(type(value), "__module__", "") or ""
        if module == "bpe" or module.startswith("bpe.") or hasattr(type(value), "__next__"):
            self.objects[self.next_id] = value
            self.next_id += 1
            return {"h": [self.next_id - 1, type(value).__name__]}
        return None

    def target(self, ref: int) -> object:
        return self.bpe() if ref == 0 else self.objects[ref]

    # -- operations ------------------------------------------------------------------------
    def op_getattr(self, msg: dict) -> object:
        value = getattr(self.target(msg["target"]), msg["name"])
        if callable(value) and not hasattr(type(value), "__next__"):
            return {"c": msg["name"]}
        return wire.encode(value, handle=self.handle)

    def op_call(self, msg: dict) -> object:
        fn = self.target(msg["target"])
        for name in msg["path"]:
            fn = getattr(fn, name)
        args = wire.decode_plain(msg["args"], self.objects.__getitem__)
        kwargs = wire.decode_plain(msg["kwargs"], self.objects.__getitem__)
        result = fn(*args, **kwargs)
        if msg.get("echo"):  # the arguments as the call left them (bpe.kit.args_after)
            return wire.encode([result, args, kwargs], handle=self.handle)
        return wire.encode(result, handle=self.handle)

    def op_next(self, msg: dict) -> dict:
        it, items, done = self.objects[msg["target"]], [], False
        for _ in range(msg["n"]):
            try:
                items.append(next(it))
            except StopIteration:
                done = True
                break
        return {"t": [wire.encode(items, handle=self.handle), done]}

    def op_stream(self, msg: dict) -> int:
        """encode_iterable over a file read lazily; ids leave in batches so none pile up here."""
        tok = self.objects[msg["target"]]
        count, batch = 0, []
        with open(msg["path"], encoding="utf-8", newline="") as f:
            chunks = iter(lambda: f.read(msg["chunk"]), "")
            for i in tok.encode_iterable(chunks):
                batch.append(i)
                if len(batch) >= BATCH:
                    self.send({"id": msg["id"], "batch": wire.encode(batch)})
                    count += len(batch)
                    batch = []
        if batch:
            self.send({"id": msg["id"], "batch": wire.encode(batch)})
            count += len(batch)
        return count

    # -- the loop ----------------------------------------------------------------------------
    def send(self, message: object) -> None:
        self.wfile.write(wire.dumps(message))
        self.wfile.flush()

    def serve(self) -> None:
        self.send({"ready": True})
        try:  # import now, while the trusted side has not asked anything yet (a spare worker)
            self.bpe()
        except BaseException:
            pass
        # The trusted side starts counting a call's time after this. `stubs`: what it may answer
        # itself, without a worker (see stub_census).
        census = wire.encode(stub_census(self.module))
        settle_heap()
        self.send({"imported": True, "census": census})
        if self.config.get("zygote"):  # it answers no call: it forks a worker for each test
            forker.serve(self, self.control, self.config.pop("proc"), census)
        self.loop()

    @staticmethod
    def mount(steps: list[list[str]]) -> None:
        apply_mounts(steps)

    def loop(self) -> None:
        """Answer requests until told to exit (or until the trusted side closes the pipe)."""
        for line in self.rfile:
            msg = wire.envelope(wire.loads(line))
            if msg["op"] == "exit":
                return
            restore = (
                report_cores(msg["cores"]) if type(msg.get("cores")) is int and msg["cores"] > 0 else None
            )
            try:
                result = getattr(self, "op_" + msg["op"])(msg)
                line = wire.dumps({"id": msg["id"], "ok": result})
            except wire.WireError as exc:  # raised while encoding what the student returned
                line = wire.dumps({"id": msg["id"], "bad": str(exc), "measured": wire.encode(exc.fields)})
            except Exception as exc:  # the student's exception, reported; the worker lives on
                try:
                    info = self.describe(exc)
                except Exception:  # an exception too strange to describe is still reported
                    info = {
                        "type": "Exception",
                        "mro": [],
                        "message": "(an exception that cannot be described)",
                        "traceback": "",
                    }
                line = wire.dumps({"id": msg["id"], "err": wire.encode(info)})
            except BaseException as exc:  # SystemExit, KeyboardInterrupt...: this worker is done
                self.send({"id": msg["id"], "fatal": f"{type(exc).__name__}: {_safe_str(exc)}"})
                os._exit(70)
            if restore is not None:
                restore()
            self.wfile.write(line)
            self.wfile.flush()

    def describe(self, exc: BaseException) -> dict:
        mro = [f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__]
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if os.path.realpath(f.filename).startswith(self.submission)
        ]
        lines = []
        for f in frames:
            rel = os.path.relpath(os.path.realpath(f.filename), self.submission)
            lines.append(f'  File "{rel}", line {f.lineno}, in {f.name}')
            if f.line:
                lines.append(f"    {f.line.strip()}")
        if (
            isinstance(exc, SyntaxError)
            and exc.filename
            and os.path.realpath(exc.filename).startswith(self.submission)
        ):
            rel = os.path.relpath(os.path.realpath(exc.filename), self.submission)
            lines.append(f'  File "{rel}", line {exc.lineno}')
            if exc.text:
                lines.append(f"    {exc.text.strip()}")
        info = {
            "type": type(exc).__name__,
            "mro": mro,
            "message": _safe_str(exc)[:4000],
            "traceback": "\n".join(lines)[:8000],
        }
        if frames:  # the line of their code that raised it: the crash's place, as data
            last = frames[-1]
            info["where"] = [os.path.relpath(os.path.realpath(last.filename), self.submission), last.lineno]
        if isinstance(exc, importing.DoesNotImport):
            info["not_imported"] = exc.data
        return info


# ------------------------------------------------------------------------------------ stubs
def stub_message(fn: object) -> str | None:
    """The message of a function whose whole body (after its docstring) is `raise
    NotImplementedError("...")` and that nothing wraps; None for any other function."""
    if (
        type(fn) is not types.FunctionType
        or "NotImplementedError" not in fn.__code__.co_names
        or fn.__globals__.get("NotImplementedError") is not None
    ):
        return None
    import ast  # only when a function names NotImplementedError: a finished package never pays for it
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except Exception:
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    if type(node) is not ast.FunctionDef or node.name != fn.__name__:
        return None
    if any(
        not (isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod")) for d in node.decorator_list
    ):
        return None
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or type(body[0]) is not ast.Raise or body[0].cause is not None:
        return None
    exc = body[0].exc
    if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
        return ""
    if (
        isinstance(exc, ast.Call)
        and isinstance(exc.func, ast.Name)
        and exc.func.id == "NotImplementedError"
        and not exc.keywords
        and len(exc.args) == 1
        and isinstance(exc.args[0], ast.Constant)
        and type(exc.args[0].value) is str
    ):
        return exc.args[0].value[:4000]
    return None


def _stub(fn: Callable, bound: int) -> dict | None:
    """A stub's message and parameters (less the `bound` first: self, cls), as data."""
    message = stub_message(fn)
    if message is None:
        return None
    import inspect

    params = list(inspect.signature(fn).parameters.values())[bound:]
    return {"message": message, "params": [[p.name, int(p.kind), p.default is not p.empty] for p in params]}


def stub_census(module: types.ModuleType | None) -> dict:
    """`stubs`: the package's stubs by dotted name (public functions, and the constructors,
    classmethods and staticmethods of its public classes, that only raise NotImplementedError, as
    in an untouched starter); `callables`: its public functions and classes. A stub's call ends the
    same way in every worker, so the trusted side answers it itself and a test of an unwritten
    function costs no worker. Whatever this says can only cost the submission points, never earn
    them: a call it names raises NotImplementedError."""
    found: dict[str, dict] = {}
    callables: list[str] = []
    try:
        for name, value in list(vars(module).items()) if module is not None else ():
            if name.startswith("_"):
                continue
            if type(value) is types.FunctionType:
                entries = [(name, value, 0)]
            elif type(value) is type and value.__new__ is object.__new__:
                entries = [(name, value.__init__, 1)]
                for attr, raw in vars(value).items():
                    if type(raw) in (classmethod, staticmethod):
                        entries.append((f"{name}.{attr}", raw.__func__, int(type(raw) is classmethod)))
            else:
                continue
            callables.append(name)
            if len(callables) > CENSUS_CAP:
                return {}
            for dotted, fn, bound in entries:
                stub = _stub(fn, bound)
                if stub is not None:
                    found[dotted] = stub
    except Exception:
        return {}
    return {"stubs": found, "callables": callables}


def expose_submission(config: dict) -> None:
    """Make `bpe` (and `regex`) importable here and in every interpreter the submission starts.

    The folder stays on sys.path for good: a multiprocessing child started by "spawn" or
    "forkserver" gets its sys.path from this process's, and must import `bpe` to unpickle its job.
    PYTHONPATH does the same for a child started with subprocess (the worker runs without -E).
    The folder holds nothing but the sandbox copy of `bpe/`, so no other module is shadowed."""
    lib = [config["lib"]] if config.get("lib") else []  # none under --python (worker.become)
    sys.path.insert(0, config["submission"])
    sys.path += lib
    os.environ["PYTHONPATH"] = os.pathsep.join([config["submission"], *lib])


def settle_heap() -> None:
    """Collect, then freeze, what the import left, before the first call is timed.

    A child process forked by a call shares its parent's memory until it writes to it, and a
    garbage collection in the child writes to every object it walks. Objects the import left young
    are walked by the child's first collections: each child of a pool then copies that part of the
    heap, and pays for it in CPU time. A CS336 trainer with a pool of ten, whose package imports
    torch, spent 3.0-4.3 s of CPU on its first call and 2.0-2.6 s on the next (0.33 s against 1.5 s
    in its children), and was stopped at 1.5x the training budget on six runs out of eight. A frozen
    object is never walked again (`gc.freeze`), so a first call costs what a later one does, as it
    does outside the grader. Objects made by calls are collected as usual, so memory is measured
    as before."""
    import gc

    gc.collect()
    gc.freeze()


def watch_children() -> None:
    """Say on stderr when a multiprocessing child of the submission is found killed by a signal
    that its parent did not send (a pool worker SIGKILLed): a `multiprocessing.Pool` then waits for
    ever for the lost task, and this line is all the trusted side can show of the cause
    (call_words.child_failure). A child ended by `terminate()`/`kill()` (a pool closing) is not news."""
    import multiprocessing.process as mp

    exitcode, terminate, kill = mp.BaseProcess.exitcode, mp.BaseProcess.terminate, mp.BaseProcess.kill
    noted: set[int] = set()

    def watched_exitcode(self: mp.BaseProcess) -> int | None:
        code = exitcode.fget(self)
        if code is not None and code < 0 and not getattr(self, "_kit_ended", False):
            pid = self.pid or 0
            if pid not in noted:
                noted.add(pid)
                try:
                    os.write(2, child_note(pid, -code).encode())
                except OSError:
                    pass
        return code

    def ended_by_parent(method: Callable[[mp.BaseProcess], None]) -> Callable[[mp.BaseProcess], None]:
        def end(self: mp.BaseProcess) -> None:
            self._kit_ended = True
            return method(self)

        return end

    mp.BaseProcess.exitcode = property(watched_exitcode)
    mp.BaseProcess.terminate = ended_by_parent(terminate)
    mp.BaseProcess.kill = ended_by_parent(kill)


def report_cores(n: int, *, affinity: bool = True) -> Callable[[], None]:
    """Make the submission see `n` usable cores through every way Python tells it (os.cpu_count,
    os.process_cpu_count, os.sched_getaffinity, multiprocessing.cpu_count, and so the defaults of
    Pool and ProcessPoolExecutor); returns a function that restores what was there.

    At start-up `n` is the cores this process may really run on, so the counts agree with one
    another (the real affinity set is kept: `affinity=False`); a graded test may ask for more (`bpe.kit.cores`), so that a trainer that splits its
    input per core is graded splitting it even on a one-core grading machine."""
    import multiprocessing

    saved = {
        name: getattr(os, name)
        for name in ("cpu_count", "process_cpu_count", "sched_getaffinity")
        if hasattr(os, name)
    }
    saved_mp = multiprocessing.cpu_count

    def count() -> int:
        return n

    def fake_affinity(pid: int = 0) -> set[int]:
        return set(range(n)) if pid in (0, os.getpid()) else saved["sched_getaffinity"](pid)

    os.cpu_count = count
    if "process_cpu_count" in saved:
        os.process_cpu_count = count
    if "sched_getaffinity" in saved and affinity:
        os.sched_getaffinity = fake_affinity
    multiprocessing.cpu_count = count

    def restore() -> None:
        for name, fn in saved.items():
            setattr(os, name, fn)
        multiprocessing.cpu_count = saved_mp

    return restore


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except BaseException:
        return f"<the {type(exc).__name__} could not be printed>"


def become(config: dict) -> None:
    """`--python`: the grader's interpreter has confined this process; now it turns into the
    student's interpreter (site enabled, so their venv's packages load), which serves from here."""
    python = config.pop("python")
    config["confined"], config["lib"] = True, None  # the kit's compiled `regex` may not match it
    for fd in [*config["fds"], *([config["proc"]] if "proc" in config else [])]:
        os.set_inheritable(fd, True)
    boot = (
        f"import sys; sys.path.insert(0, {config['runtime']!r}); "
        "from kitworker.worker import main; main(sys.argv)"
    )
    os.execv(python, [python, "-s", "-P", "-B", "-c", boot, json.dumps(config)])


def main(argv: list[str]) -> None:
    config = json.loads(argv[1])
    if not config.get("confined"):
        confine(config)
        if config.get("python"):
            become(config)  # does not return: the student's interpreter runs main() again
    expose_submission(config)
    watch_children()
    report_cores(usable_cores(), affinity=False)  # the real affinity set, and counts that agree
    rfile = os.fdopen(config["fds"][0], "rb")
    wfile = os.fdopen(config["fds"][1], "wb")
    worker = Worker(config, rfile, wfile)
    if config.get("zygote"):
        import socket

        worker.control = socket.socket(fileno=config["fds"][2])
    worker.serve()
