"""What the golden fixtures are made of: every corpus, training case and text, defined in code.

grader/oracles/fixtures.py writes them with their expected answers (`make fixtures`). Each corpus
and case exposes one rule, and its comment or `about` says which; the public ones are shipped with
the handout, the hidden ones are not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from data.corpus import EOT
from grader.bpe_facts.pieces import reference_pretokenize, reference_split
from grader.bpe_facts.text_pieces import PIECES, VARIED
from grader.i18n import N_


def _lines(*lines: str, times: int = 1) -> str:
    return "".join(line + "\n" for line in lines) * times


def _generated(kind: str, n_bytes: int, seed: int) -> str:
    from data.corpus import generate_text

    return generate_text(kind, n_bytes, seed)


# ---------------------------------------------------------------------------------------------
# Corpora. Each is small, and each is built to expose one rule: the comment says which.

PUBLIC_CORPORA = {
    # Repeated-pair words ("aaaa": merge non-overlapping, left to right), contractions, a story.
    "tiny_words.txt": lambda: (
        _lines(
            "low low low low low lower lower widest widest widest newest newest newest newest",
            "aaaa aaaa aaa aaaaa abab abab ababab baba bababa",
            "the cat sat on the mat. the dog ate the hat. they're here, we'll see, I've won, it's done, don't",
            'She said: "Look at the moon!" -- and the moon looked back.',
            times=3,
        )
        + _lines("low lowest lower; new newer newest", "aaaaaaaa abababab")
    ),
    # Text glued to the special token on both sides: merges must not cross it.
    "specials.txt": lambda: (
        "".join(
            f"once upon a time{EOT}there was a cat{EOT}cat{EOT}at the end.{EOT}\n{EOT}the cat sat{EOT}sat down\n"
            for _ in range(4)
        )
        + f"{EOT}{EOT}the end"
    ),
    # One special token is a prefix of another: the longest match wins.
    "overlap.txt": lambda: "".join(
        f"hi{EOT}{EOT}there{EOT}names <|user|>name: Ann<|user|>names <|user|> nameless{EOT}{EOT}{EOT}\n"
        for _ in range(5)
    ),
    # Special tokens full of regex metacharacters: split on them literally.
    "metachar.txt": lambda: "".join(
        f"[SEP]Spell SEPARATE with a PEN.[SEP] (a|b)* is a regex; a|b or ab{EOT}price $5.00 ok\\n done\n"
        for _ in range(4)
    ),
    # Old Mac line ends (a lone "\r") and Windows ones ("\r\n"): read the file without translation.
    "newlines_cr.txt": lambda: "".join(
        f"line {i}\rcarriage return\r\rnext\r\nwindows line\r\n\r\nend\r" for i in range(6)
    ),
    # Characters that `regex`'s \p{L}/\p{N} and the standard `re` module classify differently; marks
    # (\p{M}), which are not letters; contractions in upper case, which GPT-2's are not.
    "unicode_numbers.txt": lambda: (
        _lines(
            "x² + y² = z²; E = mc²; 10² = 100; H₂O and CO₂; ½ cup; Ⅻ o'clock",
            "snake_case_name = area_51 + __init__; x²y²z²",
            "²²² ₂₂ ½½ x²",
            times=4,
        )
        + _lines(
            "नमस्ते दुनिया, नमस्ते नमस्ते; สวัสดีครับ สวัสดี; cafe\u0301 cafe\u0301 nai\u0308ve",
            "'THE END,' I'LL SAY. DON'T GO! 'SHE'S HERE.' WE'RE OK",
            times=4,
        )
    ),
    # A slice of the generated corpus: English and Chinese stories, one special token.
    "generated_slice.txt": lambda: _generated("mixed", 40_000, 7),
}


def _cut_words(n_bytes: int, special: str | None) -> str:
    """Filler text with a long word of its own straddling each k/8 of the file's bytes, so cutting the
    file into 2, 4 or 8 equal byte ranges splits a pre-token (and the merges change); `special`, if
    given, occurs once, far from every cut (a trainer may only cut at a special token)."""
    filler = "the cat sat on the mat, and the dog ran far. "
    text = list((filler * (n_bytes // len(filler) + 1))[:n_bytes])
    letters = "bcdfghjklmnpqrstvwxyz"
    for j in range(1, 8):
        word = " " + "".join(
            letters[(j * 5 + 3 * k) % len(letters)] + "aeiou"[(j + k) % 5] for k in range(16)
        )
        at = j * n_bytes // 8 - len(word) // 2
        text[at : at + len(word)] = word
    out = "".join(text)
    if special is not None:
        at = 3 * n_bytes // 16
        out = out[:at] + special + out[at:]
    return out


PUBLIC_CORPORA.update(
    {
        # Whitespace first and last, each run of it unique: train on the file's exact characters.
        "exact_text.txt": lambda: (
            "\n\n   " + _lines("say it twice: it is so.", "the end is near", times=3) + "end  \n\t\n"
        ),
        # Only "<|pad|>" is special; <|endoftext|> is ordinary text, wherever it sits: first in the
        # file, after a letter, the listed token, whitespace, punctuation, a digit, inside a word,
        # twice in a row, and last. A cut before it changes the pre-tokens where a space, a mark
        # or another <|endoftext|> would have joined its "<|".
        "other_special.txt": lambda: (
            EOT
            + "".join(
                f"the end{EOT}<|pad|>the start<|pad|>{EOT} is text, see {EOT}here! {EOT}? go{EOT}ok 42{EOT}7 "
                f"mid{EOT}word {EOT}{EOT} twice<|pad|>\n"
                for _ in range(4)
            )
            + f"the end{EOT}"
        ),
        # A long word across every k/8 of the bytes, no special token: one process, or cuts at specials.
        "cut_nowhere.txt": lambda: _cut_words(24_000, None),
        "cut_rare_special.txt": lambda: _cut_words(24_000, EOT),
        # No special token in it (one is listed), and its last character takes two bytes: a trainer
        # that cuts the file where it finds no special token splits that character.
        "no_special_ends_in_e_acute.txt": lambda: (
            _lines("le café est prêt, un thé ou un café?", "the café is near", times=3) + "encore un café"
        ),
    }
)


def _long_word() -> str:
    """One pre-token of 302 bytes, past 256 (the ints CPython shares, so equal lengths there may be
    distinct objects): " ab", 298 letters in which no pair of letters occurs twice (they change no
    merge), then "a". (a, b) is an early merge, so training meets "a" as the last token of a word that
    is still that long."""
    letters = "cdefghijklmnopqrst"
    # Lyndon words of length 1 and 2 over `letters`, in order: a de Bruijn sequence, every pair once.
    pairs_once = "".join(x + "".join(x + y for y in letters[i + 1 :]) for i, x in enumerate(letters))
    return " ab" + pairs_once[:298] + "a"


HIDDEN_CORPORA = {
    "hidden_mixed.txt": lambda: _generated("mixed", 30_000, 23),
    "hidden_tricky.txt": lambda: (
        "".join(
            f"<|a|><|a|>x²<|a|>y\r\rz_1 {EOT}[x]one[x] ab<|a|>ab\r\nabab²² the quick brown fox{EOT}jumps "
            f"over the lazy dog; x_{i}² = {i}½\n"
            for i in range(6)
        )
        + _long_word()
    ),
}


@dataclass(frozen=True)
class Train:
    name: str
    corpus: str
    vocab_size: int
    special_tokens: tuple[str, ...]
    about: str


PUBLIC_TRAIN = [
    Train("tiny_words", "tiny_words.txt", 300, (), N_("repeated-pair words, contractions, tie-breaks")),
    Train(
        "early_stop",
        "tiny_words.txt",
        5000,
        (),
        N_("vocab_size larger than possible: stop when no pair is left"),
    ),
    Train("specials", "specials.txt", 285, (EOT,), N_("text glued to a special token")),
    Train(
        "overlap",
        "overlap.txt",
        275,
        (EOT, EOT + EOT, "<|user|>", "<|user|>name"),
        N_("special tokens that are prefixes of others"),
    ),
    Train(
        "metachar",
        "metachar.txt",
        297,
        ("[SEP]", "(a|b)*", "$5.00", "\\n", EOT),
        N_("special tokens with regex metacharacters"),
    ),
    Train("newlines_cr", "newlines_cr.txt", 286, (), N_("lone \\r and \\r\\n, read without translation")),
    Train("unicode_numbers", "unicode_numbers.txt", 300, (), N_("characters where `re` and `regex` differ")),
    Train("generated_500", "generated_slice.txt", 500, (EOT,), N_("40 KB of the generated corpus")),
    Train(
        "exact_text",
        "exact_text.txt",
        284,
        (),
        N_("leading and trailing whitespace: train on the file's exact text"),
    ),
    Train(
        "other_special",
        "other_special.txt",
        278,
        ("<|pad|>",),
        N_("a special token other than <|endoftext|>"),
    ),
    Train(
        "eot_not_special",
        "other_special.txt",
        280,
        (),
        N_("no special tokens: <|endoftext|> is ordinary text"),
    ),
    Train("cut_nowhere", "cut_nowhere.txt", 399, (), N_("24 KB, no special token: never cut a pre-token")),
    Train(
        "cut_rare_special",
        "cut_rare_special.txt",
        400,
        (EOT,),
        N_("24 KB, one special token: cut the file only at a special token"),
    ),
    Train(
        "special_absent",
        "no_special_ends_in_e_acute.txt",
        290,
        (EOT,),
        N_("a listed special token that never occurs; the last character takes two bytes"),
    ),
]

HIDDEN_TRAIN = [
    Train("hidden_mixed", "hidden_mixed.txt", 600, (EOT, "<|pad|>"), N_("30 KB of other generated stories")),
    Train(
        "hidden_tricky",
        "hidden_tricky.txt",
        305,
        ("<|a|>", "<|a|><|a|>", "[x]", EOT),
        N_("everything tricky at once"),
    ),
]

_BASIC_TEXTS = [
    "",
    "a",
    "Hello, world!",
    "Once upon a time, there was a little girl named Lily.",
    "She said, \"I don't want to go!\" They'll see. It's 3:45 and I've got 1234567 coins.",
    "the the the the",
    "  leading and trailing spaces  ",
    "tab\tseparated\tvalues",
    # GPT-2's contractions are lowercase only: "'LL" and "'Re" are "'" then letters, and "'The" is
    # "'" then "The" (not "'T" then "he").
    "'The end,' said Mom. 'She is here.' I'LL SEE. DON'T GO! We'Re HERE, IT'S 3 O'CLOCK, YOU'VE WON.",
]
_SPECIAL_TEXTS = [
    EOT,
    f"a{EOT}b",
    f"{EOT}{EOT}",
    f"{EOT}{EOT}{EOT}",
    f"The end.{EOT}Once upon a time",
    "<|endoftext|<|endoftext|>|>",
    f"{EOT[:-1]} is not a special token",
    f"\n{EOT}\n\n{EOT}",
    # Special tokens match exactly: other letter case, or a token without its first or last
    # characters, is ordinary text.
    "<|ENDOFTEXT|>",
    f"<|EndOfText|>{EOT}<|ENDOFTEXT|><|ENDOFTEXT|>",
    f"endoftext|>{EOT}|endoftext|> <|endoftext",
]
_UNICODE_TEXTS = [
    "从前，有一只可爱的小猫，名叫小明。",
    "Zoë and José met Søren in the café.",
    "🙂 👍🏽 ❤️ 🇫🇷 👨‍👩‍👧",
    "line one\r\nline two\r\n",
    "lone\rcarriage\rreturns\r",
    "   many   spaces   \n\n\n  and\t\t tabs \u00a0 nbsp \u3000 ideographic",
    "x² + y² = z², ½, Ⅻ",
    "\x00\x01 control \x7f chars",
    "mixed 中文 and English 123 ok",
    # Marks (\p{M}) are neither letters nor numbers: the pattern's "other" class cuts them off.
    "नमस्ते दुनिया, สวัสดีครับ",
    "cafe\u0301 nai\u0308ve e\u0301\u0301 (decomposed) café (composed)",
    # Right to left, with Hebrew's vowel marks.
    "مرحبا بالعالم 123 שָׁלוֹם עוֹלָם",
    # Emoji joined by U+200D, a flag, variation selectors (U+FE0F, U+FE0E), a skin tone.
    "👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈 🇯🇵 ☺\ufe0e ✌🏽!",
    # Every kind of whitespace \s holds, each between letters and in a run.
    "a\x0bb\x0cc\x85d\u2029e\u1680f\u3000g\u00a0h\u2028i \x0b\x0c\u3000\u00a0 j",
]

# Runs of newlines and spaces with no special token, on a vocab that merges whitespace (exact_text):
# only GPT-2's pattern, cutting nowhere else, gives these ids.
_WHITESPACE_TEXTS = [
    "a\n\nb",
    "a\n\n  b",
    "end  \n\t\n",
    "x\n\n\n   \n",
    "  \n  \n\n  x  ",
    "the end  \n\n  near",
    "\n\n   say it twice\n\n",
    "say it twice: it is so.\n\n\nthe end is near\n  \n",
]

PUBLIC_ENCODE = {
    "basic": ("generated_500", (EOT, EOT + EOT), _BASIC_TEXTS),
    "specials": ("generated_500", (EOT, EOT + EOT), _SPECIAL_TEXTS),
    "unicode": ("generated_500", (EOT, EOT + EOT), _UNICODE_TEXTS),
    "whitespace": ("exact_text", (), _WHITESPACE_TEXTS),
}

HIDDEN_ENCODE = {
    "hidden_mixed": (
        "hidden_mixed",
        ("<|pad|>", EOT, "<|pad|><|pad|>", "<|new|>"),
        [
            "<|pad|><|pad|><|pad|>",
            f"<|new|>{EOT}<|pad|>",
            "Tim and Lily played with the ball.",
            "小红和小明一起去公园玩。",
            "  \r\n\r\n  ",
            "😊🌈 done",
            "<|pad|",
            "ab<|new|>cd",
        ],
    ),
}

GPT2_FORMAT = {"generated_500": ("generated_500", _BASIC_TEXTS + _UNICODE_TEXTS + [EOT + "x"])}
# The same tokenizer in files laid out as the format allows, not as `save` writes them: ids that are
# not 0..n-1 (the bytes are not at their byte values, as in GPT-2's own vocab.json), with gaps, and
# listed in no order; merges.txt with blank lines, which from_files skips. (train case, texts, seed)
GPT2_RENUMBERED = {"generated_500_renumbered": ("generated_500", _BASIC_TEXTS + [EOT + "x"], 500)}


# Part 3's "encode matches" property: texts built from the same pieces as test_part3.py's TEXTS.
_CHAR_RANGES = [
    (0x20, 0x7E),
    (0x00, 0x1F),
    (0xA0, 0x2FF),
    (0x370, 0x52F),
    (0x2000, 0x206F),
    (0x3000, 0x30FF),
    (0x4E00, 0x4FFF),
    (0x1F300, 0x1F6FF),
    (0x80, 0x10FFFF),
]


def _random_char(rng: random.Random) -> str:
    while True:
        low, high = rng.choice(_CHAR_RANGES)
        c = rng.randint(low, high)
        if not 0xD800 <= c <= 0xDFFF:  # surrogates are not text
            return chr(c)


# Pre-tokens in which the most frequent pair is not the lowest-ranked one (with generated_500):
# only these tell an encoder that merges by frequency from one that merges by rank.
_RANK_NOT_FREQUENCY = ["or retet", "h lll", "thohoo"]


def _generated_texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    texts = {"", EOT * 3, "\r\n\r\n  \t", f"a{EOT}{EOT}b", " the  cat"}
    texts |= {a + b for a in PIECES for b in PIECES}  # readable small failures come first
    texts |= set(_RANK_NOT_FREQUENCY)
    texts |= set(VARIED)
    while len(texts) < n:
        pieces = []
        for _ in range(rng.randint(0, 8)):
            if rng.random() < 0.5:
                pieces.append(rng.choice(PIECES))
            else:
                pieces.append("".join(_random_char(rng) for _ in range(rng.randint(0, 6))))
        texts.add("".join(pieces))
    return sorted(texts, key=lambda t: (len(t), t))


PUBLIC_ENCODE["generated"] = ("generated_500", (EOT, EOT + EOT), _generated_texts(2024, 1000))

# 3.10 (encode_iterable == encode, however the text is chunked) cuts these at every point, every pair
# of points (short ones) and between every two characters. They follow GPT-2's pattern, class by
# class, so that a cut lands inside and beside each kind of pre-token, and at each place where the
# text a chunk must hold back spans more than its last pre-token.
_CHUNK_TEXTS = [
    # Contractions ('(?:[sdmt]|ll|ve|re)): every one, in a word; glued one after another; with letters
    # after it ("'ll" + "ama"); and apostrophes that start none ("''ll", "' ll"). A cut after "'l"
    # must hold back "'" and "l": two pre-tokens that become one.
    "it's I'd I'm don't we'll you've they're",
    "'s'd'm't'll've're",
    "x'llama 'velvet 'return 'sx",
    "''ll ' ll'' 've'",
    # Runs of whitespace (\s+(?!\S)|\s+) before and after letters, digits and punctuation: a run
    # gives its last space to the next pre-token, and "\n\n" before "c" is "\n", "\n", but
    # "\n\n" at a chunk's end.
    "a  b\n\nc \n d\t\te",
    "1  22\n\n333 \n 4",
    "!  ?\n\n.. \n ;",
    "   lead\n\n\n  x\n  y   ",
    "hi,  there!\n\nOk 12  34",
    "a\r\n\r\nb \r\n c",
    "héllo  wörld\n\n日本語 ²½",
    # Special tokens: whitespace runs beside them, in one chunk or across chunks; one that is the
    # start of a longer one; partial ones, at the end of the text and inside other text.
    f"Hello\n\n{EOT}\n\nworld",
    f"a \n{EOT} b  {EOT}{EOT}  c",
    f"x{EOT}{EOT}{EOT}y",
    f"<|endoftext| {EOT[:-1]}{EOT}|>",
    "x <|end",
    f"{EOT}\n",
]


def _pretokens_of_every_piece(texts: list[str], specials: tuple[str, ...]) -> str:
    """Each pre-token of every substring of the texts, once, between special tokens. Trained until no
    pair is left, each becomes one token: then a text cut into other pre-tokens than encode's (by a
    wrong hold-back, or by cutting again what was already cut) always gets other ids."""
    seen: dict[str, None] = {}
    for text in texts:
        for piece in reference_split(text, specials):
            if piece in specials:
                continue
            for i in range(len(piece)):
                for j in range(i + 1, len(piece) + 1):
                    seen.update(dict.fromkeys(reference_pretokenize(piece[i:j])))
    return EOT.join(seen)


PUBLIC_CORPORA["chunk_edges.txt"] = lambda: _pretokens_of_every_piece(_CHUNK_TEXTS, (EOT, EOT + EOT))
PUBLIC_TRAIN.append(
    Train(
        "chunk_edges",
        "chunk_edges.txt",
        484,  # exactly what the corpus holds: every pair is merged, no early stop
        (EOT,),
        N_("every pre-token of 3.10's texts, each trained into one token: its ids show every cut"),
    )
)
PUBLIC_ENCODE["chunks"] = ("chunk_edges", (EOT, EOT + EOT), _CHUNK_TEXTS)


def _char_bpe_cases(seed: int, n: int) -> list[tuple[str, int]]:
    """Part 1's CharBPE.train cases: short texts over "ab \nc" (random, and repeated motifs)."""
    rng = random.Random(seed)
    cases = {("aaaa", 3), ("abcabcab", 4), ("", 0), ("", 3), ("a", 2), ("\n\n\n", 2), ("ab\nab", 3)}
    while len(cases) < n:
        if rng.random() < 0.5:
            text = "".join(rng.choice("ab \nc") for _ in range(rng.randint(0, 30)))
        else:
            motif = "".join(rng.choice("ab \nc") for _ in range(rng.randint(1, 4)))
            text = (motif * rng.randint(2, 8))[:30]
        cases.add((text, rng.randint(0, 6)))
    return sorted(cases, key=lambda c: (len(c[0]), c[0], c[1]))


CHAR_BPE_CASES = _char_bpe_cases(336, 160)
