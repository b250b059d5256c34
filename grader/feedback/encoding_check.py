"""Checks for encoding against golden ids, shared by the public and the hidden graded tests."""
from __future__ import annotations

from grader.feedback import golden
from grader.feedback.encoder import TrustedEncoder
from grader.feedback.shapes import check_ids


def tokenizer_for(bpe, visibility: str, name: str):
    """(the student's tokenizer, the golden case, a trusted encoder with the same vocab)."""
    case = golden.EncodeCase(golden.root(visibility), name)
    tok = bpe.BPETokenizer(dict(case.train.vocab), list(case.train.merges), list(case.special_tokens))
    return tok, case, TrustedEncoder(case.train.vocab, case.train.merges, case.special_tokens)


def _tokens(vocab: dict[int, bytes], ids: list[int]) -> str:
    return "[" + ", ".join(repr(vocab[i]) if i in vocab else f"<unknown id {i}>" for i in ids) + "]"


def explain_ids(trusted: TrustedEncoder, text: str, expected: list[int], got: list[int]) -> str | None:
    if got == expected:
        return None
    vocab = trusted.vocab
    lines = [f"encode({text!r}) is wrong.",
             f"  expected {expected}",
             f"         = {_tokens(vocab, expected)}",
             f"  got      {got}",
             f"         = {_tokens(vocab, got)}"]
    k = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))
    lines.append(f"  the first difference is at position {k}.")
    same_bytes = all(i in vocab for i in got) and b"".join(vocab[i] for i in got) == text.encode("utf-8")
    specials = [s for s in trusted.special_tokens if s in text]
    if specials and any(trusted.ids[s.encode("utf-8")] not in got for s in specials):
        lines.append("Hint: each special token must become its single id; when special tokens overlap, "
                     "the longest one wins.")
    elif same_bytes:
        lines.append("Hint: your tokens spell the right bytes but are split differently. Inside each "
                     "pre-token, repeatedly merge the pair with the LOWEST merge rank (the earliest "
                     "learned merge) until no learned pair is left.")
    elif all(i in vocab for i in got):
        lines.append(f"Hint: your tokens spell {b''.join(vocab[i] for i in got)!r}, which is not the text's "
                     f"UTF-8 bytes {text.encode('utf-8')!r}.")
    return "\n".join(lines)


def check_encode_case(bpe, visibility: str, name: str) -> None:
    tok, case, trusted = tokenizer_for(bpe, visibility, name)
    for text, expected in case.texts:
        got = check_ids(tok.encode(text), f"encode({text!r})")
        problem = explain_ids(trusted, text, expected, got)
        if problem:
            raise AssertionError(problem)
