"""How fast is your encoder, and what does that mean for a real dataset?"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ._common import corpus, heading, stopwatch, table

EOT = "<|endoftext|>"
VOCAB_SIZE = 1000
PILE_BYTES = 825e9  # the Pile, a well-known 825 GB training set
WORDS = {
    "en": {
        "title": "encode speed with and without cache hits; time to tokenize 825 GB (Parts 2, 3)",
        "needs": "train_bpe (Part 2), BPETokenizer encode and pretokenize (Parts 2, 3)",
        "heading": "Lab throughput: how fast does your encoder go?",
        "units": [["days", 86400], ["hours", 3600], ["minutes", 60], ["s", 1]],
        "intro": "Tokenizer: vocab_size={vocab_size}. Text: {n_bytes} bytes of held-out stories, "
        "{n_tokens} tokens,\n{pieces} pre-tokens of which {distinct} distinct "
        "(repetition is what a cache exploits).\n",
        "first": "first encode (cache filling up)",
        "second": "second encode (cache warm)",
        "no_cache": "no cache hits (estimated)",
        "columns": ["run", "seconds", "MB/s", "time for 825 GB (one core)"],
        "notice": "\n'No cache hits' times each distinct pre-token once on a fresh tokenizer and scales "
        "up to\nall pre-tokens: what encode would cost if it recomputed every word. Real "
        "pipelines also\nsplit the data into chunks (at special tokens) and use every core.",
    },
    "zh": {
        "title": "有和没有缓存命中时的编码速度；处理 825 GB 要多久（第 2、3 部分）",
        "needs": "train_bpe（第 2 部分）、BPETokenizer 的 encode 和 pretokenize（第 2、3 部分）",
        "heading": "实验 throughput：你的编码器有多快？",
        "units": [["天", 86400], ["小时", 3600], ["分钟", 60], ["秒", 1]],
        "intro": "分词器：vocab_size={vocab_size}。文本：{n_bytes} 字节的留出故事，{n_tokens} 个词元，\n"
        "{pieces} 个预分词片段，其中 {distinct} 个互不相同（缓存利用的就是这种重复）。\n",
        "first": "第一次编码（缓存正在填充）",
        "second": "第二次编码（缓存已热）",
        "no_cache": "没有缓存命中（估算）",
        "columns": ["运行", "秒", "MB/s", "处理 825 GB 所需时间（单核）"],
        "notice": "\n“没有缓存命中”是在一个新的分词器上把每个互不相同的预分词片段各编码一次计时，再按比例\n"
        "推算到全部预分词片段：也就是 encode 每个词都重新计算时的开销。真实的处理流程还会\n"
        "把数据切成块（在特殊词元处）并用上每一个 CPU 核。",
    },
}


def _duration(seconds: float, lang: str = "en") -> str:
    *larger, (smallest, _) = WORDS[lang]["units"]
    for unit, size in larger:
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.1f} {smallest}"


def run(bpe, lang: str = "en") -> None:
    words = WORDS[lang]
    heading(words["heading"])
    gen = corpus().generate_text
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.txt"
        path.write_text(gen("mixed", 100_000, 201), encoding="utf-8")
        vocab, merges = bpe.train_bpe(path, VOCAB_SIZE, [EOT])
    text = gen("mixed", 300_000, 202)
    n_bytes = len(text.encode("utf-8"))

    tok = bpe.BPETokenizer(vocab, merges, [EOT])
    with stopwatch() as first:
        n_tokens = len(tok.encode(text))
    with stopwatch() as second:
        tok.encode(text)

    pieces = [p for doc in text.split(EOT) for p in bpe.pretokenize(doc)]
    distinct = list(dict.fromkeys(pieces))
    fresh = bpe.BPETokenizer(vocab, merges, [EOT])
    with stopwatch() as cold:
        for piece in distinct:  # each pre-token seen for the first time: no cache can help
            fresh.encode(piece)
    no_cache = cold() / len(distinct) * len(pieces)

    print(
        words["intro"].format(
            vocab_size=VOCAB_SIZE,
            n_bytes=f"{n_bytes:,}",
            n_tokens=f"{n_tokens:,}",
            pieces=f"{len(pieces):,}",
            distinct=f"{len(distinct):,}",
        )
    )
    rows = []
    for label, seconds in (
        (words["first"], first()),
        (words["second"], second()),
        (words["no_cache"], no_cache),
    ):
        rate = n_bytes / max(seconds, 1e-9)
        rows.append([label, f"{seconds:.3f}", f"{rate / 1e6:.2f}", _duration(PILE_BYTES / rate, lang)])
    print(table(words["columns"], rows, right={1, 2}))
    print(words["notice"])
