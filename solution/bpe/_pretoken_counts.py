"""Counting pre-tokens of a training file.

Only *distinct* pre-tokens and their frequencies matter to training, so the
file is reduced to a ``{pre-token bytes: count}`` table. Small files are read
whole. Large files are cut before special tokens into segments that are
counted separately, in parallel, each streamed in bounded blocks, and the
tables are added up: memory stays bounded on multi-gigabyte corpora.
"""

import itertools
import os
from collections import Counter
from functools import partial

from ._parallel import MAX_WORKERS, find_cuts, map_ordered
from ._progress import progress
from ._specials import compile_specials
from ._streaming import iter_batches
from ._text_file import iter_text, read_utf8
from .pretokenize import pretokenize

# Below this, one process reading the whole file is fastest. Above it, two
# forked workers win on two cores: starting them costs a few tens of
# milliseconds, counting 2 MiB costs about 0.2 s. (The same total CPU either
# way: on a busy machine the gain shrinks but nothing is lost.)
LARGE_BYTES = 2 << 20
SEGMENT_BYTES = 32 << 20  # aim for segments of about this size


def count_text(text: str, specials: list[str]) -> Counter:
    """Count the pre-tokens of ``text`` (special tokens are dropped).

    Counting needs the text between special tokens, not the tokens, so the
    pattern's ``split`` (one C call) replaces building every piece in order.
    ``Counter.update`` counts a list in C; strings are turned into bytes only
    once per distinct pre-token, later.
    """
    counts: Counter = Counter()
    special_re = compile_specials(specials)
    for piece in special_re.split(text) if special_re is not None else [text]:
        counts.update(pretokenize(piece))
    return counts


def count_segment(path: str | os.PathLike, specials: list[str], span: tuple[int, int]) -> Counter:
    """Count the pre-tokens of bytes ``span`` of ``path``, streaming."""
    special_re = compile_specials(specials)
    max_len = max((len(t) for t in specials), default=0)
    counts: Counter = Counter()
    for pretokens, _special in iter_batches(iter_text(path, *span), special_re, max_len):
        counts.update(pretokens)
    return counts


def is_large(path: str | os.PathLike) -> bool:
    """Large files get segments, workers and (on a terminal) progress bars."""
    return os.path.getsize(path) >= LARGE_BYTES


def count_pretokens(path: str | os.PathLike, specials: list[str]) -> dict[bytes, int]:
    """Return ``{pre-token as UTF-8 bytes: frequency}`` for the file at ``path``."""
    size = os.path.getsize(path)
    if not is_large(path):
        counts = count_text(read_utf8(path), specials)
    else:
        with open(path, "rb") as f:
            cuts = find_cuts(f, specials, n_segments=max(MAX_WORKERS, -(-size // SEGMENT_BYTES)))
        spans = list(itertools.pairwise(cuts))
        bar = progress("counting pre-tokens", size, large=True, unit=" bytes")
        counts = Counter()
        for span, part in zip(spans, map_ordered(partial(count_segment, path, specials), spans, MAX_WORKERS)):
            counts.update(part)
            bar.advance(span[1] - span[0])
        bar.close()
    return {tok.encode("utf-8"): n for tok, n in counts.items()}
