"""One check for a golden training case, shared by the public and the hidden graded tests."""

from __future__ import annotations

from pathlib import Path

from grader.checks import golden
from grader.checks.diagnose import first_difference_in_pieces, first_difference_in_specials
from grader.checks.messages import diagnosed, explain_merges, explain_vocab
from grader.checks.shapes import check_train_result


def _shown(path: Path) -> str:
    """The corpus as the student finds it in their copy of the kit (data/fixtures/...)."""
    parts = path.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "data" and parts[i + 1] == "fixtures":
            return "/".join(parts[i:])
    return path.name


def check_training_case(bpe, visibility: str, name: str) -> None:
    """Train on the case's corpus through the `bpe` fixture; compare merges, then vocab, exactly."""
    case = golden.TrainCase(golden.root(visibility), name)
    call = f"train_bpe('{_shown(case.corpus_path)}', vocab_size={case.vocab_size}, special_tokens={case.special_tokens!r})"
    vocab, merges = check_train_result(
        bpe.train_bpe(case.corpus_path, case.vocab_size, list(case.special_tokens))
    )
    if merges != case.merges or vocab != case.vocab:
        check_stages_before_merging(bpe, case.corpus_text(), case.special_tokens, case.vocab, vocab, call)
    problem = explain_merges(case.diagnostics(), case.merges, merges)
    if problem:
        raise AssertionError(f"{call} ({case.about}):\n{problem}")
    if getattr(bpe.kit, "contract", "kit") == "cs336":  # any id per token (grader/cs336/contract.py)
        from grader.cs336.contract import relabelled

        vocab = relabelled(vocab, case.vocab)
    problem = explain_vocab(case.vocab, vocab, len(dict.fromkeys(case.special_tokens)))
    if problem:
        raise AssertionError(f"{call}: the merges are right but the vocab is not.\n{problem}")


def check_stages_before_merging(bpe, text: str, special_tokens, expected_vocab, vocab, call: str) -> None:
    """Raise the diagnosed cause when training went wrong before any merge: the special tokens in
    the vocab (each once), the special-token split or pretokenize on the corpus itself."""
    found = first_difference_in_specials(expected_vocab, vocab, special_tokens, "train_bpe")
    found = found or first_difference_in_pieces(bpe, text, special_tokens)
    if found is not None:
        raise diagnosed(found, f"(found while checking {call})", "train_bpe")
