"""More merges: a bigger vocabulary, fewer tokens. What does each side cost?"""

from __future__ import annotations

from ._common import corpus, heading, table

MERGES = (0, 6, 12, 24, 48)
D_MODEL = 512  # width of a small transformer's embeddings
PASSAGE = 1000  # characters, for the attention column
WORDS = {
    "en": {
        "title": "vocabulary size vs sequence length for 0-48 merges (Part 1)",
        "needs": "CharBPE.train and CharBPE.encode (Part 1)",
        "heading": "Lab sweep: number of merges vs tokens",
        "intro": "Training text: {chars} characters of English stories, {distinct} distinct "
        "characters.\nThe first k merges of a 48-merge training are exactly a k-merge "
        "training, so we train once.\n",
        "columns": [
            "merges",
            "vocab size",
            "tokens",
            "chars/token",
            "table params",
            "attention per {passage} chars",
        ],
        "legend": "\ntable params: embedding + output layer, 2 x vocab size x {d_model} (a small model's "
        "width).\nattention per {passage} chars: (tokens in {passage} characters)^2 scores, "
        "per layer and head.",
        "notice": "\nNotice: every merge adds one row to the embedding table and one to the output layer,"
        "\nbut shortens the text; attention costs grow with the SQUARE of the length. GPT-2 "
        "picked\n50,257 tokens: 2 x 50,257 x 768 = 77 million parameters spent on the two "
        "tables.",
        "learned": "Learned first: {merges}",
    },
    "zh": {
        "title": "0-48 次合并时词表大小与序列长度的取舍（第 1 部分）",
        "needs": "CharBPE.train 和 CharBPE.encode（第 1 部分）",
        "heading": "实验 sweep：合并次数与词元数",
        "intro": "训练文本：{chars} 个字符的英文故事，{distinct} 个互不相同的字符。\n"
        "48 次合并的训练，其前 k 次合并恰好就是 k 次合并的训练，所以只训练一次。\n",
        "columns": ["合并次数", "词表大小", "词元数", "字符/词元", "表的参数", "每 {passage} 字符的注意力"],
        "legend": "\n表的参数：嵌入层 + 输出层，2 x 词表大小 x {d_model}（一个小模型的宽度）。\n"
        "每 {passage} 字符的注意力：({passage} 个字符里的词元数)^2 个分数，每层每个注意力头。",
        "notice": "\n注意：每次合并给嵌入表和输出层各增加一行，但让文本变短；注意力的开销随长度的平方增长。\n"
        "GPT-2 选了 50,257 个词元：2 x 50,257 x 768 = 7700 万个参数花在这两张表上。",
        "learned": "最先学到的：{merges}",
    },
}


def training_text() -> str:
    """About 8 kB of English stories, without the document separators."""
    text = corpus().generate_text("en", 8_000, 5)
    return "\n".join(doc.strip() for doc in text.split("<|endoftext|>") if doc.strip())


def run(bpe, lang: str = "en") -> None:
    words = WORDS[lang]
    heading(words["heading"])
    text = training_text()
    full = bpe.CharBPE.train(text, max(MERGES))
    n_chars = len(full.vocab) - len(full.merges)
    print(words["intro"].format(chars=f"{len(text):,}", distinct=n_chars - 1))
    rows = []
    for k in MERGES:
        k = min(k, len(full.merges))
        t = bpe.CharBPE(full.vocab[: n_chars + k], full.merges[:k])
        n_tokens = len(t.encode(text))
        per_token = len(text) / n_tokens
        rows.append(
            [
                k,
                len(t.vocab),
                f"{n_tokens:,}",
                f"{per_token:.2f}",
                f"{2 * len(t.vocab) * D_MODEL:,}",
                f"{round(PASSAGE / per_token) ** 2:,}",
            ]
        )
    columns = [column.format(passage=PASSAGE) for column in words["columns"]]
    print(table(columns, rows, right={0, 1, 2, 3, 4, 5}))
    print(words["legend"].format(d_model=D_MODEL, passage=PASSAGE))
    print(words["notice"])
    print(words["learned"].format(merges=", ".join(repr(full.vocab[n]) for _, n in full.merges[:8])))
