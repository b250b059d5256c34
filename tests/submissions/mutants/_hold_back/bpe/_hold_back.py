"""A stand-in `encode_iterable` written the way a student might, with swappable rules (catalogue mutants).

Each chunk goes onto a buffer. A special token could still begin in the buffer's tail, so that tail
waits (`@SPECIAL@`); in the text before it, the complete specials and the pieces between them are
final, except the open piece after the last special, whose pre-tokens more text could still change.
`@HOLD@` decides which of those are final, and `@SETTLE@` turns the final pre-tokens into ids. Each
mutant fills in one plausible mistake. The right rules are kept beside the wrong ones: built with
only right rules, this module passes 3.10, so each row loses it for its one wrong rule.
"""

from .pretokenize import pretokenize, split_on_special_tokens


# -- where a special token could still begin -----------------------------------------------------


def _could_begin_special(buf, specials):
    """Right: the earliest position whose suffix is a prefix of a special (even a whole one,
    which a longer special may extend)."""
    for p in range(max(0, len(buf) - max(map(len, specials), default=0)), len(buf)):
        if any(s.startswith(buf[p:]) for s in specials):
            return p
    return len(buf)


def _whole_special_is_final(buf, specials):
    """Wrong: a special complete at the end of the buffer counts as settled, though a longer
    special that starts with it may still come."""
    for p in range(max(0, len(buf) - max(map(len, specials), default=0)), len(buf)):
        if any(s.startswith(buf[p:]) and s != buf[p:] for s in specials) and buf[p:] not in specials:
            return p
    return len(buf)


# -- which pre-tokens of the open piece are final ------------------------------------------------


def _all_but_last_two(piece):
    """Right (if generous): a pre-token can change only if it is one of the last two ("'" + "l" -> "'ll")."""
    toks = pretokenize(piece)
    return toks[: max(0, len(toks) - 2)]


def _all_but_last(piece):
    """Wrong: only the last pre-token waits, so "'l" + "l" gives "'", "ll" instead of "'ll"."""
    toks = pretokenize(piece)
    return toks[:-1]


def _before_last_space(piece):
    """Wrong: cuts the text just before its last space, splitting a run of spaces."""
    return pretokenize(piece[: max(0, piece.rfind(" "))])


def _before_last_whitespace(piece):
    """Wrong: cuts the text just before its last whitespace character, splitting runs of whitespace."""
    cut = max((i for i, c in enumerate(piece) if c.isspace()), default=0)
    return pretokenize(piece[:cut])


def _lines_are_final(piece):
    """Wrong: a chunk that ends a line settles everything, as if a newline could not run on."""
    return pretokenize(piece) if piece.endswith("\n") else _all_but_last_two(piece)


# -- from final pre-tokens to ids ----------------------------------------------------------------


def _each(tok, pretokens):
    """Right: every pre-token on its own, as it was cut in context."""
    return [i for p in pretokens for i in tok.encode(p)]


def _joined(tok, pretokens):
    """Wrong: glues the final pre-tokens back into a string and encodes that, which cuts it again
    without the text after it ("a\\n\\n" alone is "a", "\\n\\n"; before "b" it is "a", "\\n", "\\n")."""
    return tok.encode("".join(pretokens))


def encode_iterable(tok, chunks):
    specials = list(tok.special_tokens)
    buf = ""
    for chunk in chunks:
        buf += chunk
        cut = @SPECIAL@(buf, specials) if specials else len(buf)
        ids, pos, open_piece = [], 0, ""
        for piece in split_on_special_tokens(buf, specials):
            if pos >= cut:
                break
            if piece not in specials and pos + len(piece) >= cut:
                open_piece = buf[pos:cut]  # more text may still change how it is cut
                break
            ids += tok.encode(piece)  # a special starting before the cut, or text before one: final
            pos += len(piece)
        final = @HOLD@(open_piece)
        ids += @SETTLE@(tok, final)
        yield from ids
        buf = buf[pos + sum(map(len, final)) :]
    yield from tok.encode(buf)
