"""What happens to text a tokenizer has never seen: character-level vs byte-level."""

from __future__ import annotations

from ._common import WORDS as COMMON
from ._common import byte_vocab, heading, table

TRAIN = "the cat sat on the mat. the dog sat on the log."
TEXTS = ["cat", "Cat", "안녕", "😀"]
WORDS = {
    "en": {
        "title": "unseen characters: character-level maps them to 0, byte-level never fails (Parts 1, 3)",
        "needs": "CharBPE.train/encode/decode (Part 1) and BPETokenizer encode/decode (Part 3)",
        "heading": "Lab unknown: characters the tokenizer never saw",
        "char_level": "Character-level BPE trained on {text!r} (10 merges).\n",
        "char_columns": ["text", "ids", "decode(ids)", "same text?"],
        "byte_level": "\nByte-level tokenizer with no merges at all (ids 0-255 are the 256 byte values).\n",
        "byte_columns": ["text", "UTF-8 bytes (hex)", "ids", "decode(ids)", "same text?"],
        "notice": "\nNotice: 'C', '안', '녕' and '😀' never occur in the training text, so the character-"
        "level\ntokenizer maps them to id 0 and decodes them as '\ufffd': the text is lost. "
        "Byte-level BPE\nspells them with their UTF-8 bytes (3 per Hangul syllable, 4 for the "
        "emoji) and gets them back exactly.",
    },
    "zh": {
        "title": "没见过的字符：字符级把它们映射到 0，字节级从不失败（第 1、3 部分）",
        "needs": "CharBPE.train/encode/decode（第 1 部分）和 BPETokenizer 的 encode/decode（第 3 部分）",
        "heading": "实验 unknown：分词器从没见过的字符",
        "char_level": "在 {text!r} 上训练的字符级 BPE（10 次合并）。\n",
        "char_columns": ["文本", "编号", "decode(ids)", "文本相同？"],
        "byte_level": "\n完全没有合并规则的字节级分词器（编号 0-255 就是 256 个字节值）。\n",
        "byte_columns": ["文本", "UTF-8 字节（十六进制）", "编号", "decode(ids)", "文本相同？"],
        "notice": "\n注意：'C'、'안'、'녕' 和 '😀' 从没在训练文本里出现过，所以字符级分词器把它们\n"
        "映射到编号 0，解码成 '\ufffd'：文本丢失了。字节级 BPE 用它们的 UTF-8 字节拼出它们\n"
        "（每个韩文音节 3 个字节，emoji 4 个字节），并且能原样还原。",
    },
}


def run(bpe, lang: str = "en") -> None:
    words, yes, no = WORDS[lang], COMMON[lang]["yes"], COMMON[lang]["no"]
    heading(words["heading"])
    char_level = bpe.CharBPE.train(TRAIN, 10)
    print(words["char_level"].format(text=TRAIN))
    rows = []
    for text in TEXTS:
        ids = char_level.encode(text)
        back = char_level.decode(ids)
        rows.append([repr(text), ids, repr(back), yes if back == text else no])
    print(table(words["char_columns"], rows))

    byte_level = bpe.BPETokenizer(byte_vocab(), [])
    print(words["byte_level"])
    rows = []
    for text in TEXTS:
        data = text.encode("utf-8")
        ids = byte_level.encode(text)
        back = byte_level.decode(ids)
        rows.append([repr(text), data.hex(" "), ids, repr(back), yes if back == text else no])
    print(table(words["byte_columns"], rows))
    print(words["notice"])
