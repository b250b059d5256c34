"""Every example in the starter's docstrings is true of the reference solution.

The stubs teach by example; an example that the reference contradicts would teach the wrong rule.
Each docstring's doctests run with the solution's module as their globals.
"""

from __future__ import annotations

import doctest

import pytest
from handout_support import PUBLIC_MODULES, solution, starter, submodule


def _examples():
    finder = doctest.DocTestFinder()
    for name in PUBLIC_MODULES:
        for test in finder.find(submodule(starter(), name), module=False):
            if test.examples:
                yield pytest.param(name, test, id=test.name.split(".", 1)[-1])


def test_the_stubs_have_examples():
    documented = {test.name.rsplit(".", 1)[-1] for _, test in (p.values for p in _examples())}
    for name in (
        "merge",
        "train",
        "split_on_special_tokens",
        "pretokenize",
        "train_bpe",
        "encode",
        "encode_iterable",
        "decode",
        "bytes_to_unicode",
    ):
        assert name in documented, f"no example in the docstring of {name}"


@pytest.mark.parametrize(("module_name", "test"), list(_examples()))
def test_docstring_example_holds_for_the_solution(module_name, test):
    test.globs = dict(vars(submodule(solution(), module_name)))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
