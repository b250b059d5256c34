"""Watch character-level BPE learn, one merge at a time, on "low lower lowest"."""

from __future__ import annotations

from ._common import heading, show, table

TEXT = "low lower lowest"
WORDS = {
    "en": {
        "title": 'the merges learned on "low lower lowest", one by one (Part 1)',
        "needs": "CharBPE.train, merge, CharBPE.encode (Part 1)",
        "heading": "Lab trace: BPE merges on {text!r}",
        "intro": "{chars} characters, {distinct} distinct (ids 1-{distinct}; id 0 is the unknown token). "
        "'·' is a space.\n",
        "start": "start",
        "columns": ["step", "merge", "new token", "replaced", "tokens", "text as tokens"],
        "learned": "\nAsked for 10 merges, learned {learned}: after that no pair occurs twice, "
        "so training stops early.",
        "encoded": "encode({text!r}) = {ids}: {chars} characters -> {tokens} tokens.",
        "warning": "WARNING: encode() does not agree with replaying the merges above. "
        "Check that encode applies the merges in the order they were learned.",
        "notice": "\nNotice: in step 1, 'l'+'o' and 'o'+'w' both occur 3 times; 'l'+'o' wins because "
        "its first occurrence comes earlier. Each merge shortens the text by its count.",
    },
    "zh": {
        "title": '在 "low lower lowest" 上学到的合并规则，一条一条地看（第 1 部分）',
        "needs": "CharBPE.train、merge、CharBPE.encode（第 1 部分）",
        "heading": "实验 trace：在 {text!r} 上的 BPE 合并",
        "intro": "{chars} 个字符，其中 {distinct} 个互不相同（编号 1-{distinct}；编号 0 是未知词元）。"
        "'·' 是空格。\n",
        "start": "开始",
        "columns": ["步骤", "合并", "新词元", "替换处数", "词元数", "用词元表示的文本"],
        "learned": "\n要求 10 次合并，学到了 {learned} 次：之后没有出现两次的词元对，所以训练提前停止。",
        "encoded": "encode({text!r}) = {ids}：{chars} 个字符 -> {tokens} 个词元。",
        "warning": "警告：encode() 的结果与重放上面的合并规则不一致。"
        "检查 encode 是否按学到的顺序应用合并规则。",
        "notice": "\n注意：第 1 步里，'l'+'o' 和 'o'+'w' 都出现 3 次；'l'+'o' 胜出，因为它第一次出现得更早。"
        "每次合并让文本变短多少个词元，就看它替换了多少处。",
    },
}


def _tokens(ids: list[int], vocab: list[str]) -> str:
    return "|".join(show(vocab[i]) for i in ids)


def run(bpe, lang: str = "en") -> None:
    words = WORDS[lang]
    heading(words["heading"].format(text=TEXT))
    t = bpe.CharBPE.train(TEXT, 10)
    n_chars = len(t.vocab) - len(t.merges)
    ids = [t.vocab.index(c) for c in TEXT]  # one id per character, before any merge
    rows = [[words["start"], "", "", "", len(ids), _tokens(ids, t.vocab)]]
    for step, ((a, b), new_id) in enumerate(t.merges, start=1):
        merged = bpe.merge(ids, (a, b), new_id)
        rows.append(
            [
                step,
                f"{show(t.vocab[a])} + {show(t.vocab[b])}",
                f"{new_id} = {show(t.vocab[new_id])}",
                len(ids) - len(merged),
                len(merged),
                _tokens(merged, t.vocab),
            ]
        )
        ids = merged
    print(words["intro"].format(chars=len(TEXT), distinct=n_chars - 1))
    print(table(words["columns"], rows, right={0, 3, 4}))
    final = t.encode(TEXT)
    print(words["learned"].format(learned=len(t.merges)))
    print(words["encoded"].format(text=TEXT, ids=final, chars=len(TEXT), tokens=len(final)))
    if final != ids:
        print(words["warning"])
    print(words["notice"])
