"""GPT-2 byte table: printable bytes stand for themselves, the rest are shifted past 255."""


def bytes_to_unicode():
    printable = [b for b in range(256) if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255]
    others = [b for b in range(256) if b not in printable]
    table = {b: chr(b) for b in printable}
    table.update({b: chr(256 + k) for k, b in enumerate(others)})
    return {b: table[b] for b in range(256)}


def unicode_to_bytes():
    return {v: k for k, v in bytes_to_unicode().items()}
