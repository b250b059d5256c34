"""Every lab runs on the reference solution and prints the values it promises.

Labs run the way students run them (`python -m assignment.labs NAME --submission DIR`), in a
subprocess, in each language they speak (`--lang`); the assertions read the printed tables, whose
labels they take from the lab's own words.
"""

from __future__ import annotations

import re
import string

import pytest
from handout_support import LANGUAGES, SOLUTION, run_lab, solution

from assignment.labs import LABS, _common, compression, pretokenize, streaming, throughput, trace, unknown

lang = pytest.mark.parametrize("lang", LANGUAGES)


def lab_output(name: str, lang: str = "en") -> str:
    result = run_lab(name, SOLUTION, "--lang", lang)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    return result.stdout


def rows(output: str, first_cell: str) -> list[list[str]]:
    """Table rows (cells split on 2+ spaces) whose first cell starts with `first_cell`; a number
    must match the whole first cell (so "1" does not find "16 characters...")."""
    found = []
    for line in output.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if first_cell.isdigit() and cells[0] != first_cell:
            continue
        if cells[0].startswith(first_cell):
            found.append(cells)
    return found


@lang
def test_trace_shows_every_merge_and_16_to_6(lang):
    out = lab_output("trace", lang)
    words = trace.WORDS[lang]
    assert (
        words["encoded"].format(text="low lower lowest", ids=[10, 12, 5, 12, 6, 7], chars=16, tokens=6) in out
    )
    steps = [rows(out, str(i)) for i in range(1, 5)]
    assert [s[0][1:5] for s in steps] == [
        ["l + o", "9 = lo", "3", "13"],
        ["lo + w", "10 = low", "3", "10"],
        ["· + low", "11 = ·low", "2", "8"],
        ["·low + e", "12 = ·lowe", "2", "6"],
    ]
    assert rows(out, words["start"])[0][1:] == ["16", "l|o|w|·|l|o|w|e|r|·|l|o|w|e|s|t"]
    assert words["learned"].format(learned=4) in out and words["warning"] not in out


@lang
def test_unknown_shows_id_0_and_the_utf8_bytes(lang):
    out = lab_output("unknown", lang)
    assert rows(out, "'Cat'")[0][1] == "[0, 18]"
    assert rows(out, "'Cat'")[0][3] == _common.WORDS[lang]["no"]
    assert rows(out, "'😀'")[0][1] == "[0]"
    assert rows(out, "'안녕'")[1][1:] == [
        "ec 95 88 eb 85 95",
        "[236, 149, 136, 235, 133, 149]",
        "'안녕'",
        _common.WORDS[lang]["yes"],
    ]
    assert rows(out, "'😀'")[1][1:3] == ["f0 9f 98 80", "[240, 159, 152, 128]"]


def test_sweep_trades_vocabulary_for_length():
    from assignment.labs.sweep import training_text

    text = training_text()
    out = lab_output("sweep")
    table = [rows(out, str(k))[0] for k in (0, 6, 12, 24, 48)]
    vocab = [int(r[1]) for r in table]
    tokens = [int(r[2].replace(",", "")) for r in table]
    assert vocab[0] == len(set(text)) + 1  # the characters plus the unknown token
    assert [v - vocab[0] for v in vocab] == [0, 6, 12, 24, 48]
    assert tokens[0] == len(text) and tokens == sorted(tokens, reverse=True) and len(set(tokens)) == 5
    assert tokens[-1] == len(solution().CharBPE.train(text, 48).encode(text))


@lang
def test_pretokenize_names_the_alternatives_and_shows_longest_first(lang):
    out = lab_output("pretokenize", lang)
    words = pretokenize.WORDS[lang]
    letters, whitespace, contraction = (words["alternatives"][i] for i in (1, 4, 0))
    assert rows(out, "5")[0][1:] == ["' It'", "·It", letters]
    assert rows(out, "4")[0][1:] == ["' '", "·", whitespace]
    assert rows(out, "6")[0][1:] == ['"\'s"', "'s", contraction]
    assert words["differs"].strip() not in out
    assert "['The end.', '<|endoftext|><|endoftext|>', 'Once upon a time']" in rows(out, words["yours"])[0][1]
    assert "'<|endoftext|>', '<|endoftext|>'" in rows(out, words["shortest_first"])[0][1]


@lang
def test_compression_each_tokenizer_compresses_its_own_language(lang):
    out = lab_output("compression", lang)
    words = compression.WORDS[lang]
    names = [words["bytes_only"]] + [
        words["trained_on"].format(language=words[x]) for x in ("English", "Chinese")
    ]
    values = {cells[0]: [float(cells[1]), float(cells[2])] for name in names for cells in rows(out, name)}
    assert values[names[0]][0] < 1.1 and values[names[0]][1] < 1.1
    english, chinese = values[names[1]], values[names[2]]
    assert english[0] > 2.5 and chinese[1] > 2.5  # own language: well compressed
    assert english[1] < 1.3 and chinese[0] < 1.3  # the other one: barely


@lang
def test_throughput_counts_pretokens_and_estimates_825_gb(lang):
    text = _common.corpus().generate_text("mixed", 300_000, 202)
    pieces = [p for doc in text.split("<|endoftext|>") for p in solution().pretokenize(doc)]
    out = lab_output("throughput", lang)
    words = throughput.WORDS[lang]
    intro = words["intro"].format(
        vocab_size=1000,
        n_bytes=f"{len(text.encode()):,}",
        n_tokens="TOKENS",
        pieces=f"{len(pieces):,}",
        distinct=f"{len(set(pieces)):,}",
    )
    before, after = intro.split("TOKENS")
    assert before in out and after in out
    timed = rows(out, words["first"]) + rows(out, words["second"]) + rows(out, words["no_cache"])
    assert len(timed) == 3
    units = "|".join(unit for unit, _ in words["units"])
    for cells in timed:
        assert float(cells[1]) >= 0 and float(cells[2]) > 0
        assert re.fullmatch(rf"[\d,.]+ ({units})", cells[3])


@lang
def test_streaming_agrees_for_every_chunking_and_uses_less_memory(lang):
    out = lab_output("streaming", lang)
    words = streaming.WORDS[lang]
    intro = words["intro"].format(ids="IDS", eot="<|endoftext|>")
    whole = re.search(re.escape(intro.split("IDS")[0]) + r"([\d,]+)", out).group(1)
    labels = [words["open_file"], words["one_char"]] + [words["chunks"].format(size=n) for n in (4096, 7)]
    chunked = [cells for label in labels for cells in rows(out, label)]
    assert len(chunked) == 4
    assert all(cells[1:] == [whole, _common.WORDS[lang]["yes"]] for cells in chunked)
    whole_kib = float(rows(out, "encode(f.read())")[0][1].replace(",", ""))
    stream_kib = float(rows(out, "encode_iterable(f)")[0][1].replace(",", ""))
    assert stream_kib < whole_kib / 2


def test_the_pretokenize_lab_names_exactly_gpt2s_alternatives():
    from assignment.labs.pretokenize import ALTERNATIVES

    assert "|".join(pattern for _, pattern in ALTERNATIVES) == solution().GPT2_PATTERN


def _fields(value) -> list:
    """The format fields of a template, or of each template of a list (column headers, units)."""
    if isinstance(value, list):
        return [_fields(v) for v in value]
    if not isinstance(value, str):
        return [value]
    return sorted(name for _, name, _, _ in string.Formatter().parse(value) if name)


@pytest.mark.parametrize(
    "words", [_common.WORDS, *(lab.WORDS for lab in LABS.values())], ids=["common", *LABS]
)
def test_every_language_has_the_same_words_with_the_same_fields(words):
    assert set(words) == set(LANGUAGES)
    for lang, mine in words.items():
        assert mine.keys() == words["en"].keys(), lang
        for key, value in mine.items():
            assert _fields(value) == _fields(words["en"][key]), f"{lang}: {key}"


def test_the_unit_words_say_the_same_sizes():
    for lang in LANGUAGES:
        assert [size for _, size in throughput.WORDS[lang]["units"]] == [86400, 3600, 60, 1]
    assert throughput._duration(7200, "zh") == "2.0 小时" and throughput._duration(7200) == "2.0 hours"
    assert unknown.WORDS["zh"].keys() == unknown.WORDS["en"].keys()
