"""encode_iterable on a file, chunk by chunk, must give exactly what encode gives."""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

from ._common import WORDS as COMMON
from ._common import corpus, heading, table

EOT = "<|endoftext|>"
WORDS = {
    "en": {
        "title": "encode_iterable vs encode on a whole file: same ids, less memory (Part 3)",
        "needs": "train_bpe (Part 2), BPETokenizer encode and encode_iterable (Part 3)",
        "heading": "Lab streaming: encode_iterable vs encode",
        "open_file": "the open file (line by line)",
        "chunks": "chunks of {size} characters",
        "one_char": "chunks of 1 character",
        "intro": "encode(whole file) gives {ids} ids. encode_iterable must give the same "
        "ids whatever\nthe chunks: a chunk may end inside a word or inside {eot!r}.\n",
        "columns": ["encode_iterable over", "ids", "same as encode?"],
        "at_token": "at token {i}",
        "length": "length {got} vs {expected}",
        "no": "NO, first difference {where}",
        "peak": "\nPeak memory allocated while counting the ids of this {size} KiB file:",
        "memory_columns": ["method", "peak KiB"],
        "notice": "\nNotice: a streamed file never has to fit in memory, which matters for 825 GB. (Your "
        "cache\nfills up in both runs: memory that stays bounded, whatever the file size.)",
    },
    "zh": {
        "title": "在整个文件上比较 encode_iterable 与 encode：编号相同，内存更少（第 3 部分）",
        "needs": "train_bpe（第 2 部分）、BPETokenizer 的 encode 和 encode_iterable（第 3 部分）",
        "heading": "实验 streaming：encode_iterable 与 encode",
        "open_file": "打开的文件（一行一行）",
        "chunks": "{size} 个字符的块",
        "one_char": "1 个字符的块",
        "intro": "encode(整个文件) 给出 {ids} 个编号。不管怎样分块，encode_iterable 都必须给出\n"
        "同样的编号：一块可能在一个单词中间结束，也可能在 {eot!r} 中间结束。\n",
        "columns": ["encode_iterable 的输入", "编号数", "与 encode 相同？"],
        "at_token": "在第 {i} 个词元",
        "length": "长度 {got} 对 {expected}",
        "no": "否，第一处不同：{where}",
        "peak": "\n统计这个 {size} KiB 文件的编号时分配的内存峰值：",
        "memory_columns": ["方法", "峰值 KiB"],
        "notice": "\n注意：流式处理的文件从来不必整个放进内存，这对 825 GB 的数据很重要。（你的缓存\n"
        "在两次运行中都会填满：它占的内存有上限，与文件大小无关。）",
    },
}


def _chunks(text: str, size: int):
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _first_difference(a: list[int], b: list[int], lang: str = "en") -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return WORDS[lang]["at_token"].format(i=i)
    return "" if len(a) == len(b) else WORDS[lang]["length"].format(got=f"{len(b):,}", expected=f"{len(a):,}")


def _peak_kib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def run(bpe, lang: str = "en") -> None:
    words = WORDS[lang]
    heading(words["heading"])
    gen = corpus().generate_text
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "train.txt"
        train.write_text(gen("mixed", 50_000, 301), encoding="utf-8")
        tok = bpe.BPETokenizer(*bpe.train_bpe(train, 256 + 1 + 300, [EOT]), [EOT])
        path = Path(tmp) / "held_out.txt"
        path.write_text(gen("mixed", 150_000, 302), encoding="utf-8")
        with open(path, encoding="utf-8", newline="") as f:
            whole = tok.encode(f.read())
        rows = []
        with open(path, encoding="utf-8", newline="") as f:
            ids = list(tok.encode_iterable(f))
        rows.append([words["open_file"], f"{len(ids):,}", _verdict(whole, ids, lang)])
        text = path.read_text(encoding="utf-8")
        for size in (4096, 7, 1):
            ids = list(tok.encode_iterable(_chunks(text, size)))
            label = words["chunks"].format(size=size) if size > 1 else words["one_char"]
            rows.append([label, f"{len(ids):,}", _verdict(whole, ids, lang)])
        print(words["intro"].format(ids=f"{len(whole):,}", eot=EOT))
        print(table(words["columns"], rows, right={1}))

        def whole_file():
            with open(path, encoding="utf-8", newline="") as f:
                len(tok.encode(f.read()))

        def streamed():
            with open(path, encoding="utf-8", newline="") as f:
                sum(1 for _ in tok.encode_iterable(f))

        print(words["peak"].format(size=f"{path.stat().st_size / 1024:,.0f}"))
        print(
            table(
                words["memory_columns"],
                [
                    ["encode(f.read())", f"{_peak_kib(whole_file):,.0f}"],
                    ["encode_iterable(f)", f"{_peak_kib(streamed):,.0f}"],
                ],
                right={1},
            )
        )
    print(words["notice"])


def _verdict(expected: list[int], got: list[int], lang: str = "en") -> str:
    where = _first_difference(expected, got, lang)
    return COMMON[lang]["yes"] if not where else WORDS[lang]["no"].format(where=where)
