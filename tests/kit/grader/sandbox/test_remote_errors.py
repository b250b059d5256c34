"""Student exceptions rebuilt on the trusted side: catchable as the builtin, carrying their frames."""

from __future__ import annotations

import pytest

from grader.sandbox.remote_errors import RemoteError, rebuild_exception


def info(type_name, mro, message="boom", traceback='  File "bpe/x.py", line 3, in f\n    raise X'):
    return {"type": type_name, "mro": mro, "message": message, "traceback": traceback}


def test_builtin_exception_is_catchable_as_itself_and_as_remote_error():
    exc = rebuild_exception(
        info(
            "ValueError",
            ["builtins.ValueError", "builtins.Exception", "builtins.BaseException", "builtins.object"],
        )
    )
    with pytest.raises(ValueError, match="boom"):
        raise exc
    assert isinstance(exc, RemoteError)
    assert str(exc) == "boom"
    assert 'bpe/x.py", line 3' in exc.student_traceback
    assert exc.feedback().startswith("Your code raised ValueError: boom\n")
    exc.call = "train_bpe(a file of 911 bytes, vocab_size=300, special_tokens=[])"  # set by the call
    assert exc.feedback().startswith(f"{exc.call} raised ValueError: boom\nRaised at (your code")


def test_custom_exception_maps_to_its_nearest_builtin_ancestor():
    mro = [
        "bpe.errors.UnknownId",
        "bpe.errors.TokError",
        "builtins.KeyError",
        "builtins.LookupError",
        "builtins.Exception",
        "builtins.BaseException",
        "builtins.object",
    ]
    exc = rebuild_exception(info("UnknownId", mro, message="42"))
    assert isinstance(exc, KeyError) and isinstance(exc, LookupError)
    assert not isinstance(exc, ValueError)
    assert type(exc).__name__ == "UnknownId"
    assert str(exc) == "42"


def test_exceptions_with_strict_constructors_still_rebuild():
    mro = [
        "builtins.UnicodeDecodeError",
        "builtins.UnicodeError",
        "builtins.ValueError",
        "builtins.Exception",
        "builtins.BaseException",
        "builtins.object",
    ]
    exc = rebuild_exception(info("UnicodeDecodeError", mro, message="corpus.txt: invalid utf-8"))
    assert isinstance(exc, UnicodeDecodeError) and isinstance(exc, ValueError)
    assert "corpus.txt" in str(exc)
    oserr = rebuild_exception(
        info(
            "FileNotFoundError",
            ["builtins.FileNotFoundError", "builtins.OSError", "builtins.Exception"],
            message="nope.txt",
        )
    )
    assert isinstance(oserr, FileNotFoundError) and "nope.txt" in str(oserr)


def test_not_implemented_is_recognisable():
    exc = rebuild_exception(
        info(
            "NotImplementedError",
            ["builtins.NotImplementedError", "builtins.RuntimeError", "builtins.Exception"],
        )
    )
    assert isinstance(exc, NotImplementedError)


def test_lying_or_unknown_mro_falls_back_to_exception_never_to_base_exception():
    for mro in (
        [],
        ["evil.Thing"],
        ["builtins.SystemExit", "builtins.BaseException"],
        ["builtins.KeyboardInterrupt"],
        ["builtins.print"],
    ):
        exc = rebuild_exception(info("Weird", mro))
        assert type(exc).__mro__[1:3] == (RemoteError, Exception)


def test_rebuilt_classes_are_reused():
    mro = ["builtins.ValueError", "builtins.Exception"]
    assert type(rebuild_exception(info("ValueError", mro))) is type(
        rebuild_exception(info("ValueError", mro))
    )
