"""Settings shared by every graded test.

Hypothesis runs with ONE explicit profile so a grade never depends on luck or on the machine:
derandomized (the same examples every run), no example database, no deadline (calls go through a
sandbox and cost a process round trip), a fixed number of examples, and a bounded shrink.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "graded",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    report_multiple_bugs=False,
    print_blob=False,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.differing_executors,
        HealthCheck.data_too_large,
    ],
)
settings.load_profile("graded")
