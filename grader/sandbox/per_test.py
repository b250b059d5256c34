"""One graded test's limits as the plugin hands them over, what the test's calls have used, and
the CPU cap of each call that follows from both.

The plugin (grader/suite/plugin.py) makes one `TestLimits` per test, from the test's timeout and
budgets.PerTestLimits (which says why the limits are what they are), and hands it to the
session (`Session.begin_test`) before the test's calls. CPU time is the worker's and every process
it started, as /proc counts it; calls inside `bpe.kit.timeout` have limits of their own and count
for none of this.
"""

from __future__ import annotations

from dataclasses import dataclass

# Whose limit a call's CPU cap is (`CallCaps.whose`).
CALL = "call"
TEST = "test"


@dataclass(frozen=True)
class TestLimits:
    """The limits of one test; a CPU limit before its allowances, None where there is none (a test
    the recorded times do not know keeps only its wall-clock timeout)."""

    __test__ = False  # the grader's, not a pytest test class

    wall_s: float | None = None  # the test's wall-clock timeout: its calls' deadline
    cpu_s: float | None = None  # CPU seconds all of the test's calls may use together...
    cpu_basis: str = ""  # ...and how that figure was reached, in words
    call_cpu_s: float | None = None  # CPU seconds one call may use...
    call_cpu_basis: str = ""  # ...and how
    per_call_s: float = 0.0  # the allowance of each call the test makes (the one running too)
    per_child_s: float = 0.0  # ...and of each process its calls run (a pool's children)
    max_children: int = 0  # processes of one call that earn it the allowance, at most

    def allowed(self, used: TestUsage, slow_import_s: float) -> float:
        """CPU seconds the test's calls may use so far; `slow_import_s`: the submission's import,
        when slow (else 0), paid once to each call that ran any process."""
        # At least one allowance, even before the first call: the test's first exchange may be an
        # attribute read, and it may pay for what the reference's recorded time leaves out (a first
        # compile); a recorded 0.00 s must not be a limit of 0.
        return (
            (self.cpu_s or 0.0)
            + self.per_call_s * max(1, used.calls)
            + self.per_child_s * used.children
            + slow_import_s * used.pool_calls
        )

    def children_allowance(self, children: int, slow_import_s: float) -> float:
        """CPU seconds the `children` processes one call ran earn it: each its allowance, and, when
        the submission's import is slow, that import once (a spawned pool child imports the package
        again, a forked one does not: which one a child is cannot be told from outside, so one
        import is paid for, not one per child, and a fork pool of 32 cannot buy 32)."""
        return self.per_child_s * children + (slow_import_s if children else 0.0)

    def caps(self, cpu0: float, used: TestUsage, slow_import_s: float) -> CallCaps:
        """The cap of a call starting when the worker's CPU counter reads `cpu0`: what is left of
        the test's limit, or the limit of one call (plus one allowance) when that comes first."""
        test_cap = cpu0 + max(0.0, self.allowed(used, slow_import_s) - used.cpu_s)
        if self.call_cpu_s is None:
            return CallCaps(test_cap, TEST)
        call_cap = cpu0 + (self.call_cpu_s + self.per_call_s)
        return CallCaps(call_cap, CALL) if call_cap < test_cap else CallCaps(test_cap, TEST)


@dataclass
class TestUsage:
    """What the calls of the test running now have used (and `make bench` reports)."""

    __test__ = False  # the grader's, not a pytest test class

    cpu_s: float = 0.0
    calls: int = 0  # calls into the submission (reading an attribute is none)
    slowest_call_s: float = 0.0
    children: int = 0  # processes its calls ran that earned an allowance
    pool_calls: int = 0  # calls that ran any

    def charge(self, cpu_s: float, children: int) -> None:
        """One call ended, having used `cpu_s` and run `children` processes that earn allowances."""
        self.cpu_s += cpu_s
        self.slowest_call_s = max(self.slowest_call_s, cpu_s)
        self.children += children
        self.pool_calls += children > 0


@dataclass(frozen=True)
class CallCaps:
    """Where a call's CPU time is stopped, on the worker's CPU counter (None: nowhere), and whose
    limit that is: CALL or TEST, None for no test's (a `bpe.kit.timeout(..., cpu=)`, or none)."""

    cap: float | None = None
    whose: str | None = None


# Between tests, or without per-test limits: only the call's own wall-clock limit.
NO_TEST = TestLimits()
