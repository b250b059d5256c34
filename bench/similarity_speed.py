"""How long the similarity check takes for a class: `python bench/similarity_speed.py [--students 300]`.

A class is made from the reference's modules: each student gets a seeded random choice of them with
its identifiers renamed, plus the starter code (left out as boilerplate), about the size of a real
submission. Prints one line: students, pairs, seconds of wall clock and of CPU.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(KIT))

from grader.staff.similarity import compare  # noqa: E402

MODULES = [
    "char_bpe.py",
    "training.py",
    "tokenizer.py",
    "pretokenize.py",
    "gpt2_bytes.py",
    "extras/segments.py",
]


def make_class(root: Path, n: int) -> None:
    rng = random.Random(15)
    sources = {m: (KIT / "solution/bpe" / m).read_text() for m in MODULES}
    words = sorted(set(re.findall(r"\b[a-z_]{4,}\b", "".join(sources.values()))))
    for i in range(n):
        pkg = root / f"s{i:03d}" / "bpe"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        renames = {w: f"{w}_{i}" for w in rng.sample(words, 40)}
        for m in rng.sample(MODULES, 3):
            code = re.sub(r"\b[a-z_]{4,}\b", lambda w, r=renames: r.get(w.group(), w.group()), sources[m])
            (pkg / m).parent.mkdir(exist_ok=True)
            (pkg / m).write_text(code)
        for m in ("char_bpe.py", "tokenizer.py"):
            if not (pkg / m).exists():
                (pkg / m).write_text((KIT / "starter/bpe" / m).read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--students", type=int, default=300)
    n = ap.parse_args().students
    with tempfile.TemporaryDirectory() as tmp:
        make_class(Path(tmp), n)
        wall, cpu = time.perf_counter(), time.process_time()
        pairs, _, _ = compare(Path(tmp), starter=KIT / "starter", threshold=0.0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"similarity: {n} submissions, {n * (n - 1) // 2} pairs compared, {len(pairs)} above 0: {wall:.1f} s wall, {cpu:.1f} s CPU"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
