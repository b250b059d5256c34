"""The facts of the BPE contract that the checks and the oracles both read, importing neither.

GPT-2's pattern and byte table (`gpt2.py`), the contract's cutting of a text (`pieces.py`), the
golden fixtures' formats and reader (`golden.py`, `render.py`), the texts every part is tested on
(`text_pieces.py`) and the classic mistakes (`mistakes.py`). The oracles write the fixtures with
them; the checks read the fixtures with them. Shipped in the handout, like the checks: nothing here
computes an answer a student is asked for.
"""
