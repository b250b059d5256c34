"""`expect_error`: like pytest.raises, but the failure says what was called and why it must fail."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.i18n import _

if TYPE_CHECKING:
    from collections.abc import Callable


def expect_error(
    expected: type[BaseException], call: Callable[[], object], description: str, why: str
) -> BaseException:
    """Run `call()`; return the exception if it is an `expected`; otherwise fail in plain words."""
    try:
        value = call()
    except expected as error:
        return error
    except NotImplementedError:
        raise  # a stub: reported as "not implemented", not as a wrong exception
    except Exception as error:  # the student's exception, of another type
        raise AssertionError(
            _("{call} should raise {expected} ({why}), but it raised {error}: {message}").format(
                call=description,
                expected=expected.__name__,
                why=why,
                error=getattr(error, "remote_type", type(error).__name__),
                message=error,
            )
        ) from None
    raise AssertionError(
        _("{call} should raise {expected} ({why}), but it returned {value:.200}").format(
            call=description, expected=expected.__name__, why=why, value=repr(value)
        )
    )
