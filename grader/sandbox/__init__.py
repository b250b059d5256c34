"""Where submitted code runs: the sandbox, its worker process, and the proxies that reach it."""

from ._linux import die_with_parent

__all__ = ["die_with_parent"]
