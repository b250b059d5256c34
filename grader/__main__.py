"""`python -m grader ...`, the same as the `bpe-kit` command: see grader/cli.py."""

import sys

from .cli import main

sys.exit(main())
