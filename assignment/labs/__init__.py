"""Labs: small experiments you run on YOUR tokenizer (`make lab NAME=trace`).

They are not graded. Each one prints a table and a few things to notice; together they are the
experiments of Part 5 in the handout.
"""

from __future__ import annotations

from . import compression, pretokenize, streaming, sweep, throughput, trace, unknown

# name -> module with TITLE (one line), NEEDS (what must be implemented) and run(bpe).
LABS = {
    "trace": trace,
    "unknown": unknown,
    "sweep": sweep,
    "pretokenize": pretokenize,
    "compression": compression,
    "throughput": throughput,
    "streaming": streaming,
}
