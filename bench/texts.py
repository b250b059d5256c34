"""The texts the bench measures on: the kit's own generated corpus, at any size.

`data/corpus.py` is deterministic and a smaller size is a prefix of a larger one, so a "5 MB"
corpus here is the same bytes on every machine. Files are cached in a `corpus/` folder next to the
report (bench/results/corpus/ by default, ignored by git): the biggest take seconds to generate.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / "results" / "corpus"  # run.py points this beside its --out
MB = 1_000_000
TRAIN_SEED, VALID_SEED = 1, 2  # the seeds data/corpus.py uses for train.txt and valid.txt


def _corpus_module():
    spec = importlib.util.spec_from_file_location("bench_kit_corpus", ROOT / "data" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus_file(megabytes: float, seed: int = TRAIN_SEED, kind: str = "mixed") -> Path:
    """A file of whole generated documents, just under `megabytes` MB of UTF-8."""
    n_bytes = int(megabytes * MB)
    target = CACHE / f"{kind}-{n_bytes}-seed{seed}.txt"
    if not target.is_file():
        data = _corpus_module().generate_text(kind, n_bytes, seed).encode("utf-8")
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    return target


def special_tokens() -> list[str]:
    return [_corpus_module().EOT]
