"""What happens to text a tokenizer has never seen: character-level vs byte-level."""

from __future__ import annotations

from ._common import byte_vocab, heading, table

TITLE = "unseen characters: character-level maps them to 0, byte-level never fails (Parts 1, 3)"
NEEDS = "CharBPE.train/encode/decode (Part 1) and BPETokenizer encode/decode (Part 3)"
TRAIN = "the cat sat on the mat. the dog sat on the log."
WORDS = ["cat", "Cat", "안녕", "😀"]


def run(bpe) -> None:
    heading("Lab unknown: characters the tokenizer never saw")
    char_level = bpe.CharBPE.train(TRAIN, 10)
    print(f"Character-level BPE trained on {TRAIN!r} (10 merges).\n")
    rows = []
    for word in WORDS:
        ids = char_level.encode(word)
        back = char_level.decode(ids)
        rows.append([repr(word), ids, repr(back), "yes" if back == word else "NO"])
    print(table(["text", "ids", "decode(ids)", "same text?"], rows))

    byte_level = bpe.BPETokenizer(byte_vocab(), [])
    print("\nByte-level tokenizer with no merges at all (ids 0-255 are the 256 byte values).\n")
    rows = []
    for word in WORDS:
        data = word.encode("utf-8")
        ids = byte_level.encode(word)
        back = byte_level.decode(ids)
        rows.append([repr(word), data.hex(" "), ids, repr(back), "yes" if back == word else "NO"])
    print(table(["text", "UTF-8 bytes (hex)", "ids", "decode(ids)", "same text?"], rows))
    print(
        "\nNotice: 'C', '안', '녕' and '😀' never occur in the training text, so the character-"
        "level\ntokenizer maps them to id 0 and decodes them as '\ufffd': the text is lost. "
        "Byte-level BPE\nspells them with their UTF-8 bytes (3 per Hangul syllable, 4 for the "
        "emoji) and gets them back exactly."
    )
