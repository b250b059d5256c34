"""CharBPE.train() forks until the system says no: every child forks again, then sleeps for ever
holding the inherited pipes; the first process then fails the call. Only a sandbox that caps and
reaps processes survives this. (The catalogue runs it inside its own PID namespace and cgroup.)"""
import os
import time

from . import _hostile


def train(cls, text, num_merges):
    me = os.getpid()
    for _ in range(100_000):
        try:
            os.fork()
        except OSError:
            break
    if os.getpid() != me:
        while True:
            time.sleep(1000)
    raise RuntimeError("the process table is full")


_hostile.package().CharBPE.train = classmethod(train)
