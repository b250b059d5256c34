"""Every lab runs on the reference solution and prints the values it promises.

Labs run the way students run them (`python -m assignment.labs NAME --submission DIR`), in a
subprocess; the assertions read the printed tables.
"""

from __future__ import annotations

import re

from handout_support import run_lab, solution


def lab_output(name: str) -> str:
    result = run_lab(name)
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


def test_trace_shows_every_merge_and_16_to_6():
    out = lab_output("trace")
    assert "16 characters -> 6 tokens" in out
    assert "encode('low lower lowest') = [10, 12, 5, 12, 6, 7]" in out
    steps = [rows(out, str(i)) for i in range(1, 5)]
    assert [s[0][1:5] for s in steps] == [
        ["l + o", "9 = lo", "3", "13"],
        ["lo + w", "10 = low", "3", "10"],
        ["· + low", "11 = ·low", "2", "8"],
        ["·low + e", "12 = ·lowe", "2", "6"],
    ]
    assert rows(out, "start")[0][1:] == ["16", "l|o|w|·|l|o|w|e|r|·|l|o|w|e|s|t"]
    assert "learned 4" in out and "WARNING" not in out


def test_unknown_shows_id_0_and_the_utf8_bytes():
    out = lab_output("unknown")
    assert rows(out, "'Cat'")[0][1] == "[0, 18]"
    assert rows(out, "'😀'")[0][1] == "[0]"
    assert rows(out, "'안녕'")[1][1:] == [
        "ec 95 88 eb 85 95",
        "[236, 149, 136, 235, 133, 149]",
        "'안녕'",
        "yes",
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


def test_pretokenize_names_the_alternatives_and_shows_longest_first():
    out = lab_output("pretokenize")
    assert rows(out, "5")[0][1:] == ["' It'", "·It", "letters"]
    assert rows(out, "4")[0][1:] == ["' '", "·", "whitespace not followed by a non-space"]
    assert rows(out, "6")[0][1:] == ['"\'s"', "'s", "contraction"]
    assert "differs" not in out
    assert "['The end.', '<|endoftext|><|endoftext|>', 'Once upon a time']" in rows(out, "your split")[0][1]
    assert "'<|endoftext|>', '<|endoftext|>'" in rows(out, "shortest first")[0][1]


def test_compression_each_tokenizer_compresses_its_own_language():
    out = lab_output("compression")
    values = {
        cells[0]: [float(cells[1]), float(cells[2])]
        for cells in rows(out, "bytes only") + rows(out, "trained on")
    }
    assert values["bytes only (no merges)"][0] < 1.1 and values["bytes only (no merges)"][1] < 1.1
    english, chinese = values["trained on English"], values["trained on Chinese"]
    assert english[0] > 2.5 and chinese[1] > 2.5  # own language: well compressed
    assert english[1] < 1.3 and chinese[0] < 1.3  # the other one: barely


def test_throughput_counts_pretokens_and_estimates_825_gb():
    from assignment.labs._common import corpus

    text = corpus().generate_text("mixed", 300_000, 202)
    pieces = [p for doc in text.split("<|endoftext|>") for p in solution().pretokenize(doc)]
    out = lab_output("throughput")
    assert f"{len(pieces):,} pre-tokens of which {len(set(pieces)):,} distinct" in out
    assert f"{len(text.encode()):,} bytes" in out
    timed = rows(out, "first encode") + rows(out, "second encode") + rows(out, "no cache hits")
    assert len(timed) == 3
    for cells in timed:
        assert float(cells[1]) >= 0 and float(cells[2]) > 0
        assert re.fullmatch(r"[\d,.]+ (days|hours|minutes|s)", cells[3])


def test_streaming_agrees_for_every_chunking_and_uses_less_memory():
    out = lab_output("streaming")
    whole = re.search(r"encode\(whole file\) gives ([\d,]+) ids", out).group(1)
    chunked = rows(out, "the open file") + rows(out, "chunks of")
    assert len(chunked) == 4
    assert all(cells[1:] == [whole, "yes"] for cells in chunked)
    whole_kib = float(rows(out, "encode(f.read())")[0][1].replace(",", ""))
    stream_kib = float(rows(out, "encode_iterable(f)")[0][1].replace(",", ""))
    assert stream_kib < whole_kib / 2


def test_the_pretokenize_lab_names_exactly_gpt2s_alternatives():
    from assignment.labs.pretokenize import ALTERNATIVES

    assert "|".join(pattern for _, pattern in ALTERNATIVES) == solution().GPT2_PATTERN
