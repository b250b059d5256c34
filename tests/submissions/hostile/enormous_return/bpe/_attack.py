"""Enormous answers, each just past the grader's 64 MiB reply limit: decode returns 80 MB of text,
encode 12 million ids, pretokenize 10 million pre-tokens."""
from . import _hostile

pkg = _hostile.package()
pkg.BPETokenizer.decode = lambda self, ids: "x" * (80 << 20)
pkg.BPETokenizer.encode = lambda self, text: [123456] * 12_000_000
_hostile.patch_public("pretokenize", lambda text: ["abcdef"] * 10_000_000)
