"""`python -m grader ...`: see grader/cli.py."""

import sys

from .cli import main

sys.exit(main())
