"""Bytes per token: a tokenizer compresses the language it was trained on, and little else."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ._common import corpus, heading, table

EOT = "<|endoftext|>"
VOCAB_SIZE = 256 + 1 + 500
TRAIN_BYTES = 60_000
HELD_OUT_BYTES = 20_000
WORDS = {
    "en": {
        "title": "bytes per token, English vs Chinese, each tokenizer on each language (Parts 2, 3)",
        "needs": "train_bpe (Part 2) and BPETokenizer encode (Part 3)",
        "heading": "Lab compression: bytes per token on held-out stories",
        "English": "English",
        "Chinese": "Chinese",
        "bytes_only": "bytes only (no merges)",
        "trained_on": "trained on {language}",
        "intro": "Each tokenizer: vocab_size={vocab_size} (256 bytes + 1 special + 500 merges), trained "
        "on {train_kb} kB of\nstories. Measured on {held_out_kb} kB of "
        "OTHER stories (held out: never seen in training).\n",
        "columns": ["tokenizer", "English bytes/token", "Chinese bytes/token"],
        "notice": "\nNotice: more bytes per token means shorter sequences for the model. Each trained "
        "tokenizer\ncompresses its own language well and the other one barely better than raw "
        "bytes: a\nChinese character is 3 UTF-8 bytes, and the English merges never join them.",
    },
    "zh": {
        "title": "每词元字节数，英文与中文，每个分词器在每种语言上（第 2、3 部分）",
        "needs": "train_bpe（第 2 部分）和 BPETokenizer 的 encode（第 3 部分）",
        "heading": "实验 compression：留出的故事上的每词元字节数",
        "English": "英文",
        "Chinese": "中文",
        "bytes_only": "只有字节（没有合并）",
        "trained_on": "在{language}上训练",
        "intro": "每个分词器：vocab_size={vocab_size}（256 个字节 + 1 个特殊词元 + 500 次合并），"
        "在 {train_kb} kB 的故事上训练。\n在另一批 {held_out_kb} kB 的故事上测量（留出的数据：训练时从没见过）。\n",
        "columns": ["分词器", "英文 字节/词元", "中文 字节/词元"],
        "notice": "\n注意：每个词元的字节越多，模型看到的序列越短。每个训练出的分词器都能很好地压缩\n"
        "它自己的语言，而对另一种语言只比原始字节好一点点：一个汉字是 3 个 UTF-8 字节，\n"
        "而英文的合并规则从不把它们连起来。",
    },
}


def _bytes_per_token(tokenizer, text: str) -> float:
    return len(text.encode("utf-8")) / len(tokenizer.encode(text))


def run(bpe, lang: str = "en") -> None:
    words = WORDS[lang]
    heading(words["heading"])
    gen = corpus().generate_text
    held_out = {"English": gen("en", HELD_OUT_BYTES, 103), "Chinese": gen("zh", HELD_OUT_BYTES, 104)}
    tokenizers = {words["bytes_only"]: bpe.BPETokenizer({i: bytes([i]) for i in range(256)}, [], [EOT])}
    with tempfile.TemporaryDirectory() as tmp:
        for language, kind, seed in (("English", "en", 101), ("Chinese", "zh", 102)):
            path = Path(tmp) / f"train_{kind}.txt"
            path.write_text(gen(kind, TRAIN_BYTES, seed), encoding="utf-8")
            vocab, merges = bpe.train_bpe(path, VOCAB_SIZE, [EOT])
            name = words["trained_on"].format(language=words[language])
            tokenizers[name] = bpe.BPETokenizer(vocab, merges, [EOT])
    print(
        words["intro"].format(
            vocab_size=VOCAB_SIZE, train_kb=TRAIN_BYTES // 1000, held_out_kb=HELD_OUT_BYTES // 1000
        )
    )
    rows = [
        [name] + [f"{_bytes_per_token(tok, text):.2f}" for text in held_out.values()]
        for name, tok in tokenizers.items()
    ]
    print(table(words["columns"], rows, right={1, 2}))
    print(words["notice"])
