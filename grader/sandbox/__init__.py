"""Where submitted code runs: the sandbox, its worker process, and the proxies that reach it."""
