"""The slowest correct encoder: every merge, in training order, over a pre-token's bytes.

Obviously right and nothing else: kit tests hold the reference's fast paths against it.
"""


def replay(merges: list[tuple[bytes, bytes]], raw: bytes) -> list[bytes]:
    """The tokens of ``raw`` after applying each merge, in order, left to right, non-overlapping."""
    parts = [bytes([b]) for b in raw]
    for a, b in merges:
        merged, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                merged.append(a + b)
                i += 2
            else:
                merged.append(parts[i])
                i += 1
        parts = merged
    return parts
