"""Every public function and method loops for ever (what a real infinite loop looks like): each
test must be stopped at its own time limit, derived from the reference's time for it, so the whole
grade stays short."""
from . import _hostile


def forever(*args, **kwargs):
    while True:
        pass


pkg = _hostile.package()
for name in ("train_bpe", "merge", "pretokenize", "split_on_special_tokens", "bytes_to_unicode", "unicode_to_bytes"):
    _hostile.patch_public(name, forever)
pkg.CharBPE.train = classmethod(forever)
for cls in (pkg.CharBPE, pkg.BPETokenizer):
    for name in ("__init__", "encode", "decode", "state", "save", "encode_iterable"):
        if name in vars(cls):
            setattr(cls, name, forever)
pkg.BPETokenizer.from_files = classmethod(forever)
