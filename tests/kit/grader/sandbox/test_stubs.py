"""The stub census (worker.stub_census, remote_errors.Census): once a worker has imported the submission,
a call to a function that only raises NotImplementedError is answered without a worker, exactly as
the worker would have answered it; anything else still goes to a worker."""

from __future__ import annotations

import importlib.util

import pytest
from grader_toys import write_submission

from grader.paths import KIT_ROOT
from grader.sandbox.proxy import connect
from grader.sandbox.remote_errors import RemoteError

SOURCE = '''
import functools

def done(x):
    return x + 1

def stub(a, b=2):
    """Documented, not written."""
    raise NotImplementedError("stub is yours to write")

def bare():
    raise NotImplementedError

def computed():
    raise NotImplementedError("computed " + "message")

def wrapped_by(f):
    return f

@wrapped_by
def decorated():
    raise NotImplementedError("decorated")

class Tok:
    def __init__(self, vocab):
        raise NotImplementedError("Tok.__init__ is yours to write")

    @classmethod
    def load(cls, path):
        raise NotImplementedError("Tok.load is yours to write")

    def encode(self, text):
        raise NotImplementedError("Tok.encode is yours to write")

class Made:
    def __init__(self):
        self.n = 1

    @staticmethod
    def helper(x):
        raise NotImplementedError("Made.helper is yours to write")

    def encode(self, text):
        raise NotImplementedError("Made.encode is yours to write")
'''

REBOUND = SOURCE + "\nclass NotImplementedError(Exception):\n    pass\n"


@pytest.fixture
def bpe(tmp_path):
    with connect(write_submission(tmp_path / "sub", SOURCE)) as proxy:
        assert proxy.done(1) == 2  # the first worker imports the submission and says what it holds
        proxy._session.recycle()
        yield proxy


def _answered_here(proxy, call) -> BaseException:
    """What `call` raised, asserting that no worker was started for it."""
    with pytest.raises(NotImplementedError) as info:
        call()
    assert proxy._session.worker is None, "a worker was started for a call to a stub"
    return info.value


def test_the_census_names_the_stubs_and_nothing_else(bpe):
    census = bpe._session.census
    assert set(census.stubs) == {"stub", "bare", "Tok", "Tok.load", "Made.helper"}
    assert {"done", "stub", "Tok", "Made", "wrapped_by"} <= census.callables


def test_a_stubs_call_raises_the_workers_error_without_a_worker(bpe):
    exc = _answered_here(bpe, lambda: bpe.stub(1))
    assert str(exc) == "stub is yours to write" and isinstance(exc, RemoteError)
    assert str(_answered_here(bpe, lambda: bpe.Tok({}))) == "Tok.__init__ is yours to write"
    assert str(_answered_here(bpe, lambda: bpe.Tok.load(path="x"))) == "Tok.load is yours to write"
    assert str(_answered_here(bpe, lambda: bpe.Made.helper(3))) == "Made.helper is yours to write"
    assert str(_answered_here(bpe, bpe.bare)) == ""


def test_a_stubs_error_names_the_call_as_a_workers_would(bpe):
    """The feedback says which call raised, not "Your code raised NotImplementedError"."""
    exc = _answered_here(bpe, lambda: bpe.stub(1))
    assert exc.feedback() == "stub(1) raised NotImplementedError: stub is yours to write"


def test_arguments_that_do_not_bind_go_to_a_worker_for_its_own_type_error(bpe):
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        bpe.stub()
    assert bpe._session.worker is not None


# A method of an object is never answered here: by the time it exists, its class could be anything.
CALLS = {
    "computed": lambda b: b.computed(),
    "decorated": lambda b: b.decorated(),
    "method": lambda b: b.Made().encode("x"),
}


@pytest.mark.parametrize("call", CALLS)
def test_what_is_not_a_plain_stub_runs_in_a_worker(bpe, call):
    with pytest.raises(NotImplementedError):
        CALLS[call](bpe)
    assert bpe._session.worker is not None


def test_a_module_that_rebinds_NotImplementedError_has_no_stubs(tmp_path):
    with connect(write_submission(tmp_path / "sub", REBOUND)) as proxy:
        assert proxy.done(1) == 2
        assert proxy._session.census.stubs == {}


def test_the_training_gate_of_an_untouched_starter_prepares_nothing(tmp_path, monkeypatch):
    """E.1 with train_bpe still a stub ends with its NotImplementedError before it writes its 1 MB
    corpus and times the reference, and without a warm-up call (which could fail for other reasons)."""
    path = KIT_ROOT / "tests" / "graded" / "test_efficiency.py"
    spec = importlib.util.spec_from_file_location("graded_efficiency", path)
    gate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gate)

    def refused(*_args, **_kwargs):
        raise AssertionError("the gate prepared its inputs for a stub")

    monkeypatch.setattr(gate.calibration, "budgets", refused)
    monkeypatch.setattr(gate.calibration, "write_training_corpus", refused)
    with connect(KIT_ROOT / "starter") as proxy:
        proxy.kit._session.prepare()  # as before every test: the import, and its census
        proxy.kit._session.recycle()
        with pytest.raises(NotImplementedError, match=r"train_bpe is yours to write \(Part 2\)"):
            gate.test_training_speed(proxy, tmp_path, lambda *_: None)
        assert proxy.kit._session.worker is None  # no call was made
