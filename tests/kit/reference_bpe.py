"""Import solution/bpe under its own name, so kit tests of the starter (also
a package called ``bpe``) can run in the same pytest process."""

import importlib.util
import sys
from pathlib import Path

SOLUTION = Path(__file__).resolve().parents[2] / "solution"
_NAME = "bpe_reference"


def load():
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    init = SOLUTION / "bpe" / "__init__.py"
    spec = importlib.util.spec_from_file_location(_NAME, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module
