"""A deterministic corpus of short English and Chinese stories, generated on the spot.

Why generate instead of download: tests, the grader and the labs need a corpus that exists on
every machine, offline, byte for byte the same, so that golden merges and speed budgets mean the
same thing everywhere. The text imitates TinyStories: simple story sentences, dialogue with
contractions, numbers, a few accented names, curly quotes, dashes and emoji, and about one
document in five in Chinese. Word choices follow a Zipf-like law (a few words very often, many
words rarely), so BPE learns the merges it learns on real text (" the", " and", " was", 一个...).

Why the same bytes everywhere: the only source of randomness is `SplitMix64` below, written with
plain integer arithmetic. Python's `random`, `hash()` and set order are never used, because their
results may change between Python versions or runs. Every list is iterated in its written order.

Documents end with "\\n<|endoftext|>\\n", like TinyStories V2.

API (paths are resolved relative to this file, never to the working directory):
    ensure(name) -> Path           the file in data/corpus/, generated if missing or altered
    generate_text(kind, n_bytes, seed) -> str    whole documents, for tests that need a slice
    FILES                          name -> (kind, size, seed); SHA256 name -> pinned digest
CLI: `python data/corpus.py` or `python -m data.corpus` generates all files, prints size and sha256.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from bisect import bisect_right
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
CORPUS_DIR = DATA_DIR / "corpus"
EOT = "<|endoftext|>"  # the one copy of the kit's own: the grader, tests and bench import it
DOC_END = "\n" + EOT + "\n"

# name -> (kind, target size in bytes, seed). Kinds: "en", "zh", "mixed" (~20% Chinese docs).
FILES: dict[str, tuple[str, int, int]] = {
    "train.txt": ("mixed", 4_000_000, 1),
    "valid.txt": ("mixed", 200_000, 2),
    "valid_en.txt": ("en", 100_000, 3),
    "valid_zh.txt": ("zh", 100_000, 4),
}

# The sha256 of each generated file. A test regenerates and compares: if the generator changes,
# these must be updated on purpose (`python data/corpus.py --print-hashes`), since golden
# fixtures and calibrated budgets were made from the old bytes.
SHA256: dict[str, str] = {
    "train.txt": "2d18b43b52d3e582a2fa72b3a0fcee1aa050d7da7756ac4d15797199c9bc9bc8",
    "valid.txt": "e5ae4fcde26339218cd36f0b799fb71d480b0abbebad853f61480404c212fc5b",
    "valid_en.txt": "764703055df1d33d68d9f8594e1896fc255e8921ad707690c0c7f3f33b45a8f4",
    "valid_zh.txt": "1630ac365fb5a95aad35705664dbbdec061e93f23c7c10b42162bd5db0c7babd",
}

KINDS = ("en", "zh", "mixed")
ZH_PER_MILLE = 200  # share of Chinese documents in "mixed" text


# --------------------------------------------------------------------------------------------
# Randomness: SplitMix64 (Steele, Lea, Flood 2014), pure integer operations.

_MASK = (1 << 64) - 1


class SplitMix64:
    """A tiny PRNG whose output depends only on the seed, on every Python and platform."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An int in [0, n). Multiply-high instead of modulo: no loop, bias below 2**-40."""
        return (self.next() * n) >> 64

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def chance(self, per_mille: int) -> bool:
        return self.below(1000) < per_mille


class Zipf:
    """Draws items with weight ~ 1/rank: lists are written most common first."""

    def __init__(self, items) -> None:
        self.items = items
        self.cumulative = []
        total = 0
        for rank in range(len(items)):
            total += 1_000_000 // (rank + 2)  # integers only: no float rounding to worry about
            self.cumulative.append(total)
        self.total = total

    def draw(self, rng: SplitMix64):
        return self.items[bisect_right(self.cumulative, rng.below(self.total))]


# --------------------------------------------------------------------------------------------
# Templates: "{slot}" is filled from the story; "{a:slot}" adds "a"/"an"; "{pl:slot}" pluralises.
# Parsed once into (literal, modifier, slot) triples so filling is a simple loop.


def _parse(template: str) -> list[tuple[str, str, str]]:
    parts, rest = [], template
    while "{" in rest:
        literal, rest = rest.split("{", 1)
        slot, rest = rest.split("}", 1)
        modifier, _, name = slot.rpartition(":")
        parts.append((literal, modifier, name))
    parts.append((rest, "", ""))
    return parts


def _zipf_templates(lines: str) -> Zipf:
    return Zipf([_parse(line) for line in lines.strip().split("\n")])


_IRREGULAR = {
    "child": "children",
    "mouse": "mice",
    "fish": "fish",
    "sheep": "sheep",
    "leaf": "leaves",
    "wolf": "wolves",
    "person": "people",
    "foot": "feet",
}


def _plural(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _words(text: str) -> Zipf:
    return Zipf(text.split())


# --------------------------------------------------------------------------------------------
# English vocabulary, most common first in every list.

EN_HE = [
    "Tim",
    "Ben",
    "Max",
    "Sam",
    "Tom",
    "Jack",
    "Leo",
    "Bob",
    "Joe",
    "Finn",
    "Jake",
    "Dan",
    "Luke",
    "Noah",
    "Eli",
    "Oscar",
    "Hugo",
    "Theo",
    "Milo",
    "José",
    "André",
    "Noël",
    "Björn",
    "Søren",
    "Raúl",
    "Zoltán",
    "Jürgen",
    "Ahmed",
    "Kenji",
]
EN_SHE = [
    "Lily",
    "Sue",
    "Mia",
    "Anna",
    "Lucy",
    "Emma",
    "Sara",
    "Amy",
    "Kate",
    "Ella",
    "Rose",
    "Jane",
    "Molly",
    "Ruby",
    "Ivy",
    "Nora",
    "Lena",
    "Maya",
    "Zoë",
    "Chloé",
    "Renée",
    "Amélie",
    "Inés",
    "Léa",
    "Maëlle",
    "Sofía",
    "Ingrid",
    "Priya",
    "Aiko",
]
EN_KIDS = {"he": ["boy", "little boy", "kid"], "she": ["girl", "little girl", "kid"]}
EN_ANIMALS = _words(
    "dog cat bunny bird bear fox duck frog mouse puppy kitten owl lion pig cow "
    "horse monkey turtle fish squirrel elephant tiger deer sheep wolf bee "
    "butterfly dragon unicorn penguin giraffe otter hedgehog"
)
EN_ADJ = _words(
    "little big happy small kind nice good old red pretty funny shiny brave silly "
    "tiny sad soft new blue green friendly tall yellow curious fast gentle quiet "
    "strong smart huge angry sleepy hungry warm cold clever lazy bright dark wet "
    "fluffy colorful noisy busy careful lucky special proud strange wild purple "
    "orange golden wooden magic beautiful scary clean dirty heavy"
)
EN_NOUN = _words(
    "ball toy box tree car book hat cake flower kite house boat apple rock stick "
    "doll cookie blanket shell star cup bike train balloon drum picture bag key "
    "leaf nest map coin sock shoe ring crayon puzzle candy basket bell rope lamp "
    "pillow spoon clock robot feather sandwich jar umbrella wagon mirror bucket "
    "treasure letter whistle"
)
EN_PLACE = _words(
    "park garden house forest school yard beach river pond kitchen room farm "
    "hill lake street store town field zoo playground woods library cave sea "
    "castle meadow bakery island village mountain barn jungle market"
)
EN_FAMILY = _words("mom dad mommy daddy sister brother grandma grandpa teacher aunt uncle")
EN_FEEL = _words(
    "happy sad excited scared surprised proud sorry angry tired glad worried curious lonely shy brave calm"
)
EN_DO = _words(
    "play run jump swim dance sing read draw climb hide share help bake explore paint fly build laugh rest"
)
EN_DID = _words(
    "played ran jumped walked looked smiled laughed danced sang waited hid "
    "climbed shouted whispered hopped cried giggled slept"
)
EN_TOOK = Zipf(
    [
        "found",
        "saw",
        "took",
        "picked up",
        "lost",
        "wanted",
        "held",
        "carried",
        "dropped",
        "shared",
        "fixed",
        "opened",
        "hugged",
        "chased",
        "kicked",
        "threw",
        "painted",
        "washed",
    ]
)
EN_WEATHER = _words("sunny rainy windy cold warm snowy cloudy hot foggy")
EN_TIME = Zipf(
    [
        "One day",
        "Then",
        "Later",
        "The next day",
        "Soon",
        "That night",
        "Suddenly",
        "After lunch",
        "In the morning",
        "Every day",
        "After a while",
        "At last",
    ]
)
EN_NUMW = _words("two three four five six seven ten many some a_few")
EN_MORAL = Zipf(
    [
        "sharing is caring",
        "it is good to help others",
        "being kind is important",
        "friends make everything better",
        "it's okay to ask for help",
        "you should always tell the truth",
        "trying again is brave",
        "it is fun to try new things",
        "listening is a gift",
        "every small act of kindness counts",
    ]
)
EN_EMOJI = _words("🌟 😊 🐶 🎈 🍎 🌈 ❤️ 🐱 🌻 🚀 🍰 🐸")
EN_MEAL = _words("dinner lunch breakfast a snack cake soup")

EN_SAY = _zipf_templates("""
Can I play with you?
Let's go to the {place}!
I don't want to go.
Look at my {X}!
Where is my {X}?
I'm sorry.
Thank you, {F}!
You're my best friend.
It's so {adj}!
Don't be {feel}, I'll help you.
We can share the {X}.
What's that?
I can't find it!
Wow, {numw} {pl:noun}!
Hello, {F}!
Be careful!
I'll be right back.
Who's there?
That's not fair!
We'll find it together.
Can you help me, please?
I've never seen {a:adj} {noun} before.
Yes, you can!
It isn't mine, it's {F}'s.
Let's not fight. We're friends.
Oh no, the {X} is broken!
I didn't mean to do it.
My {family} said I can't go to the {place} alone.
Come on, {F}, it'll be fun!
I think it's {a:adj} {noun}.
""")

EN_OPEN = _zipf_templates("""
Once upon a time, there was {a:adj} {kind} named {H}.
Once upon a time there was a little {kind} named {H}.
One day, {a:adj} {kind} named {H} went to the {P}.
There was once {a:kind} called {H} who lived near the {P}.
{H} was {a:adj} {kind}. {He} was {age} years old.
Once upon a time, in a {adj} {P}, there lived a {kind} named {H}.
""")

EN_BODY = _zipf_templates("""
{He} loved to {do} with {his} {X}.
{time}, {H} went to the {P} with {his} {family}.
{He} saw {a:adj} {noun} near the {place}.
{H} wanted to play with the {X}.
{He} said, "{say}"
"{say}" said {F}.
{F} smiled and said, "{say}"
{H} was very {feel}.
{He} didn't know what to do.
They played with the {X} all day long.
{H} and {F} ran to the {place} to find the {X}.
{He} looked up at the sky and saw {numw} {adj} {pl:noun}.
There were {n} {pl:noun} in the {place}.
{time}, {H} met {a:adj} {animal} named {F}.
{F} was {a:adj} {animal} who liked to {do}.
It was {weather} outside, so {H} stayed near the {P}.
{H} {took} the {X} and {did}.
{He} {did} and {did} until {he} was {feel}.
"{say}" {H} asked.
{F} said, "{say}" {H} nodded.
{H}'s {family} said, "{say}"
{He} felt {feel} because {he} couldn't find {his} {X}.
{H} ran to the {P} — but the {X} was gone!
Suddenly, {a:adj} {animal} jumped out from behind the {noun}!
At {clock}, {H}'s {family} called {him} for {meal}.
{He} gave the {X} to {F}, and {F} said, "Thank you!"
"Don't worry," said {F}. "{say}"
{H} counted the {pl:noun}: one, two, three… there were {n}!
{H} was {age} years old, and {he} had never seen {a:adj} {noun} like that.
{He} thought, "{say}"
The {X} was {adj} and {adj}.
{H} drew {a:adj} {noun} on a piece of paper. {emoji}
They worked together, and soon the {X} was fixed.
{H}'s {X} cost ${n}, so {he} saved {his} coins for {n} days.
{F} and {H} laughed — they weren't {feel} anymore.
""")

EN_END = _zipf_templates("""
From that day on, {H} and {F} were best friends.
The end.
{H} learned that {moral}.
And they all lived happily ever after.
{H} went home, tired but {feel}.
{H} smiled. It was the best day ever!
That night, {H} dreamed about the {X}. {emoji}
""")


# --------------------------------------------------------------------------------------------
# Chinese vocabulary.

ZH_NAMES = [
    "小明",
    "小红",
    "乐乐",
    "豆豆",
    "小兰",
    "小华",
    "丁丁",
    "妞妞",
    "阿福",
    "小雨",
    "大山",
    "小美",
    "明明",
    "天天",
    "小军",
    "欢欢",
    "小芳",
    "亮亮",
    "小龙",
    "果果",
    "毛毛",
    "小强",
    "甜甜",
    "东东",
]
ZH_ANIMAL = _words(
    "小猫 小狗 小兔子 小鸟 小熊 小鸭子 小猴子 大象 老虎 乌龟 小鱼 小羊 "
    "小猪 狐狸 松鼠 青蛙 蝴蝶 小马 熊猫 企鹅 小老鼠 长颈鹿"
)
ZH_ADJ = _words(
    "可爱的 聪明的 快乐的 勇敢的 小小的 漂亮的 善良的 调皮的 胖胖的 "
    "害羞的 大大的 好奇的 安静的 友好的 懒懒的 神奇的"
)
ZH_THING = _words(
    "球 风筝 气球 苹果 书 花 帽子 玩具 蛋糕 石头 小船 铅笔 糖果 "
    "娃娃 积木 铃铛 星星 贝壳 雨伞 篮子 钥匙 图画 信 桃子 西瓜"
)
ZH_PLACE = _words(
    "公园 森林 河边 学校 花园 山上 家里 海边 村子 草地 湖边 动物园 小路 果园 商店 图书馆 厨房 田野 城里 山洞"
)
ZH_FAMILY = _words("妈妈 爸爸 奶奶 爷爷 姐姐 哥哥 老师 弟弟 妹妹 外婆")
ZH_FEEL = _words("高兴 开心 难过 害怕 惊讶 着急 生气 伤心 兴奋 满意 紧张 骄傲")
ZH_DO = _words("玩 跑步 唱歌 跳舞 画画 看书 游泳 爬山 捉迷藏 踢球 放风筝 做游戏")
ZH_NUM = _words("两 三 四 五 六 七 八 九 十 许多")
ZH_WEATHER = _words("阳光很好 下着小雨 刮着大风 下雪了 天气很热 天很冷 有点阴")
ZH_TIME = _words("有一天 后来 第二天 那天晚上 忽然 过了一会儿 早上 下午 不久")
ZH_BOOK = _words("小王子 西游记 安徒生童话 十万个为什么 三只小猪 小红帽")
ZH_MORAL = Zipf(
    [
        "朋友之间要互相帮助",
        "做错了事要说对不起",
        "分享会带来快乐",
        "只要努力就能成功",
        "要爱护小动物",
        "说话要诚实",
    ]
)

ZH_SAY = _zipf_templates("""
我们一起去{place}玩吧！
你能帮帮我吗？
我的{X}不见了！
谢谢你，{F}！
别怕，我来帮你。
这个{thing}真好看！
你好，{F}！
我们是好朋友。
对不起，我不是故意的。
快来看，这里有{num}个{thing}！
小心一点！
我们可以一起玩{X}。
这是什么呀？
太好了！
没关系，我们再试一次。
""")

ZH_OPEN = _zipf_templates("""
从前，有一只{adj}{animal}，名叫{H}。
从前，在一个{adj}{P}里，住着一只{animal}，它叫{H}。
{H}是一只{adj}{animal}，今年{n}岁了。
很久很久以前，{P}里住着一只{animal}，大家都叫它{H}。
""")

ZH_BODY = _zipf_templates("""
{H}最喜欢和{family}一起{do}。
{time}，{H}去{P}玩。
{H}在{place}看见了一个{adj}{thing}。
{H}对{F}说：“{say}”
{F}笑着说：“{say}”
{H}心里很{feel}。
{time}，{H}遇到了一只{animal}，名叫{F}。
{F}问：“{say}”
{H}和{F}一起去{place}找{X}。
天上有{num}颗星星，{H}数了一遍又一遍。
那天{weather}，{H}就在{P}里{do}。
{H}拿起{X}，高兴地跑回了家。
{H}找啊找，可是怎么也找不到{X}……
{H}的{family}说：“{say}”
{H}有{n}个{thing}，送给了{F}{num}个。
{F}点点头，说：“好啊！我们一起去吧。”
{H}读了一本书，叫《{book}》。
他们在{place}里看到了{thing}、{thing}和{thing}。
{H}跑到{place}——可是{X}已经不见了！
晚上，{H}躺在床上，想着今天发生的事。
{F}说：“OK！”然后笑了起来。
""")

ZH_END = _zipf_templates("""
从那以后，{H}和{F}成了好朋友。
{H}明白了一个道理：{moral}。
最后，大家都很{feel}。
这真是快乐的一天！
""")


# --------------------------------------------------------------------------------------------
# Story generation.

_EN_HE_Z, _EN_SHE_Z, _EN_ALL_Z = Zipf(EN_HE), Zipf(EN_SHE), Zipf(EN_HE + EN_SHE)
_ZH_NAMES_Z = Zipf(ZH_NAMES)


def _fill(parts, slots: dict, rng: SplitMix64) -> str:
    """Fill parsed template `parts`; a slot holds a fixed str, a Zipf (fresh draw) or a callable."""
    out = []
    for literal, modifier, name in parts:
        out.append(literal)
        if not name:
            continue
        value = slots[name]
        if isinstance(value, Zipf):
            value = value.draw(rng)
        elif callable(value):
            value = value()
        if modifier == "a":
            value = _article(value)
        elif modifier == "pl":
            value = _plural(value)
        out.append(value)
    return "".join(out)


def _curly(text: str) -> str:
    """Typographic quotes: ’ for apostrophes, alternating “ ” for double quotes."""
    pieces = text.replace("'", "\u2019").split('"')
    out = [pieces[0]]
    for i, piece in enumerate(pieces[1:]):
        out.append("\u201c" if i % 2 == 0 else "\u201d")
        out.append(piece)
    return "".join(out)


def _paragraphs(rng: SplitMix64, sentences: list[str], joiner: str) -> str:
    """Group sentences into 2-5 per line, like TinyStories; a few blank lines between them."""
    lines, i = [], 0
    while i < len(sentences):
        take = 2 + rng.below(4)
        lines.append(joiner.join(sentences[i : i + take]))
        i += take
    out = lines[0]
    for line in lines[1:]:
        out += ("\n\n" if rng.chance(80) else "\n") + line
    return out


def _english_story(rng: SplitMix64) -> str:
    pronoun = "he" if rng.chance(500) else "she"
    hero = (_EN_HE_Z if pronoun == "he" else _EN_SHE_Z).draw(rng)  # Tim common, Søren rare
    friend = _EN_ALL_Z.draw(rng)
    if friend == hero:
        friend = "Max" if hero != "Max" else "Lily"
    animal_hero = rng.chance(400)
    kind = EN_ANIMALS.draw(rng) if animal_hero else rng.pick(EN_KIDS[pronoun])
    slots = {
        "H": hero,
        "F": friend,
        "kind": kind,
        "X": EN_NOUN.draw(rng),
        "P": EN_PLACE.draw(rng),
        "He": pronoun.capitalize(),
        "he": pronoun,
        "his": "his" if pronoun == "he" else "her",
        "him": "him" if pronoun == "he" else "her",
        "age": str(3 + rng.below(7)),
        "adj": EN_ADJ,
        "noun": EN_NOUN,
        "place": EN_PLACE,
        "animal": EN_ANIMALS,
        "family": EN_FAMILY,
        "feel": EN_FEEL,
        "do": EN_DO,
        "did": EN_DID,
        "took": EN_TOOK,
        "weather": EN_WEATHER,
        "time": EN_TIME,
        "moral": EN_MORAL,
        "meal": EN_MEAL,
        "numw": lambda: EN_NUMW.draw(rng).replace("_", " "),
        "n": lambda: str(2 + rng.below(98) if rng.chance(900) else 100 + rng.below(1900)),
        "clock": lambda: f"{1 + rng.below(12)}:{rng.pick(('00', '15', '30', '45'))}",
        "emoji": EN_EMOJI,
    }
    slots["say"] = lambda: _fill(EN_SAY.draw(rng), slots, rng)
    sentences = [_fill(EN_OPEN.draw(rng), slots, rng)]
    for _ in range(4 + rng.below(12)):
        sentences.append(_fill(EN_BODY.draw(rng), slots, rng))
    sentences.append(_fill(EN_END.draw(rng), slots, rng))
    text = _paragraphs(rng, [s.rstrip() for s in sentences], " ")
    return _curly(text) if rng.chance(250) else text


def _chinese_story(rng: SplitMix64) -> str:
    hero = _ZH_NAMES_Z.draw(rng)
    friend = rng.pick(ZH_NAMES)
    if friend == hero:
        friend = "小明" if hero != "小明" else "小红"
    slots = {
        "H": hero,
        "F": friend,
        "X": ZH_THING.draw(rng),
        "P": ZH_PLACE.draw(rng),
        "adj": ZH_ADJ,
        "animal": ZH_ANIMAL,
        "thing": ZH_THING,
        "place": ZH_PLACE,
        "family": ZH_FAMILY,
        "feel": ZH_FEEL,
        "do": ZH_DO,
        "num": ZH_NUM,
        "weather": ZH_WEATHER,
        "time": ZH_TIME,
        "book": ZH_BOOK,
        "moral": ZH_MORAL,
        "n": lambda: str(2 + rng.below(18)),
    }
    slots["say"] = lambda: _fill(ZH_SAY.draw(rng), slots, rng)
    sentences = [_fill(ZH_OPEN.draw(rng), slots, rng)]
    for _ in range(4 + rng.below(10)):
        sentences.append(_fill(ZH_BODY.draw(rng), slots, rng))
    sentences.append(_fill(ZH_END.draw(rng), slots, rng))
    return _paragraphs(rng, sentences, "")


def _story(kind: str, rng: SplitMix64) -> str:
    if kind == "zh" or (kind == "mixed" and rng.chance(ZH_PER_MILLE)):
        return _chinese_story(rng)
    return _english_story(rng)


def generate_text(kind: str, n_bytes: int, seed: int) -> str:
    """Whole documents of `kind` ("en", "zh" or "mixed"), each ending with "\\n<|endoftext|>\\n".

    Always at least one document; then documents are added while the UTF-8 size stays
    <= n_bytes. The same (kind, n_bytes, seed) gives the same text on every machine, and a
    smaller n_bytes gives a prefix of a larger one.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if isinstance(n_bytes, bool) or not isinstance(n_bytes, int) or n_bytes < 0:
        raise ValueError(f"n_bytes must be a non-negative int, not {n_bytes!r}")
    rng = SplitMix64(seed)
    docs, size = [], 0
    while True:
        doc = _story(kind, rng) + DOC_END
        doc_size = len(doc.encode("utf-8"))
        if docs and size + doc_size > n_bytes:
            return "".join(docs)
        docs.append(doc)
        size += doc_size


# --------------------------------------------------------------------------------------------
# Files on disk.


def _canonical(name: str) -> str:
    key = name if name.endswith(".txt") else name + ".txt"
    if key not in FILES:
        raise ValueError(f"unknown corpus file {name!r}; known: {', '.join(FILES)}")
    return key


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def path(name: str) -> Path:
    """Where `name` lives (it may not exist yet: use ensure())."""
    return CORPUS_DIR / _canonical(name)


def ensure(name: str) -> Path:
    """Return the path of corpus file `name` ("train", "valid.txt", ...), generating it if it is
    missing or its bytes differ from the pinned sha256.

    Written to a temporary file then renamed, so concurrent callers never see half a file.
    RuntimeError if freshly generated bytes do not match the pin (the generator has drifted).
    """
    key = _canonical(name)
    target = CORPUS_DIR / key
    pinned = SHA256[key]
    if target.is_file() and (not pinned or _sha256(target) == pinned):
        return target
    kind, size, seed = FILES[key]
    data = generate_text(kind, size, seed).encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    if pinned and digest != pinned:
        raise RuntimeError(
            f"data/corpus.py generated {key} with sha256 {digest}, expected "
            f"{pinned}: the generator changed; update SHA256 deliberately"
        )
    CORPUS_DIR.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{key}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args != ["--print-hashes"]:
        print("usage: python data/corpus.py [--print-hashes]", file=sys.stderr)
        return 2
    if args == ["--print-hashes"]:  # for updating SHA256 after a deliberate change
        for key, (kind, size, seed) in FILES.items():
            data = generate_text(kind, size, seed).encode("utf-8")
            print(f'    "{key}": "{hashlib.sha256(data).hexdigest()}",')
        return 0
    start = time.perf_counter()
    try:
        paths = [ensure(key) for key in FILES]
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:  # read-only checkout, disk full...
        print(
            f"error: could not write {error.filename or CORPUS_DIR}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 1
    for p in paths:
        print(f"{p.stat().st_size:>10,} bytes  sha256 {_sha256(p)}  {p.relative_to(DATA_DIR.parent)}")
    print(f"corpus ready in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
