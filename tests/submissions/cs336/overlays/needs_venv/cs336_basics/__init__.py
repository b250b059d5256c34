"""A CS336 repository whose package imports what only its own venv has (as real ones import torch)."""

import cs336_venv_only  # noqa: F401  (installed in the repository's .venv by the kit's test)
