"""Every signature quoted in the handout is the starter's signature.

Two places quote signatures, in every language of the handout: ```python blocks whose first line is "# signatures (not run)"
(parsed as Python stubs: names, defaults, annotations, classmethods), and inline code spans that
look like a call of a public function with plain argument names, e.g. `merge(ids, pair, new_id)`.
"""

from __future__ import annotations

import ast
import inspect
import re

import pytest
from handout_support import ALL_HANDOUTS, HANDOUTS, LANGUAGES, label, python_blocks, starter

SPAN = re.compile(r"`((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)\(((?:[a-z_]\w*)(?:, [a-z_]\w*)*)?\)`")


def _norm(annotation) -> str | None:
    if annotation is None or annotation is inspect.Parameter.empty:
        return None
    text = annotation if isinstance(annotation, str) else ast.unparse(annotation)
    return text.strip("'\"").replace(" ", "")


def _starter_callables() -> dict[str, list]:
    """Short name -> the starter's functions and methods of that name (e.g. two `encode`s)."""
    bpe = starter()
    found: dict[str, list] = {}
    for name in bpe.__all__:
        obj = getattr(bpe, name)
        if inspect.isfunction(obj):
            found.setdefault(name, []).append(obj)
        elif inspect.isclass(obj):
            found.setdefault(name, []).append(obj.__init__)
            for attr, _raw in vars(obj).items():
                if not attr.startswith("_") or attr == "__init__":
                    found.setdefault(f"{name}.{attr}", []).append(getattr(obj, attr))
                    found.setdefault(attr, []).append(getattr(obj, attr))
    return found


def _quoted_signatures(paths=ALL_HANDOUTS):
    """(where, qualified name, ast.FunctionDef, is_classmethod) from the signature blocks."""
    for path in paths:
        for where, code in python_blocks(path):
            if not code.lstrip().startswith("# signatures"):
                continue
            for node in ast.parse(code).body:
                if isinstance(node, ast.FunctionDef):
                    yield where, node.name, node, False
                elif isinstance(node, ast.ClassDef):
                    for item in node.body:
                        if isinstance(item, ast.FunctionDef):
                            decorators = [ast.unparse(d) for d in item.decorator_list]
                            yield where, f"{node.name}.{item.name}", item, "classmethod" in decorators


def _ast_shape(node: ast.FunctionDef) -> tuple:
    args = node.args.args
    defaults = [None] * (len(args) - len(node.args.defaults)) + node.args.defaults
    params = [
        (a.arg, None if d is None else ast.literal_eval(d), _norm(a.annotation))
        for a, d in zip(args, defaults)
    ]
    return params, _norm(node.returns)


def _real_shape(fn) -> tuple:
    sig = inspect.signature(fn)
    params = [
        (p.name, None if p.default is inspect.Parameter.empty else p.default, _norm(p.annotation))
        for p in sig.parameters.values()
    ]
    return params, _norm(sig.return_annotation)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_handout_quotes_every_graded_signature(lang):
    quoted = {name for _, name, _, _ in _quoted_signatures(HANDOUTS[lang])}
    for name in (
        "merge",
        "CharBPE.train",
        "CharBPE.encode",
        "CharBPE.decode",
        "CharBPE.state",
        "split_on_special_tokens",
        "pretokenize",
        "train_bpe",
        "BPETokenizer.__init__",
        "BPETokenizer.from_files",
        "BPETokenizer.save",
        "BPETokenizer.encode",
        "BPETokenizer.encode_iterable",
        "BPETokenizer.decode",
    ):
        assert name in quoted, f"the handout never quotes the signature of {name}"


@pytest.mark.parametrize(
    ("where", "name", "node", "is_classmethod"),
    [pytest.param(*q, id=f"{q[0]}:{q[1]}") for q in _quoted_signatures()],
)
def test_quoted_signature_matches_the_starter(where, name, node, is_classmethod):
    bpe = starter()
    owner, _, attr = name.rpartition(".")
    if owner:
        cls = getattr(bpe, owner)
        raw = inspect.getattr_static(cls, attr)
        assert isinstance(raw, classmethod) == is_classmethod, f"{where}: {name} classmethod?"
        real = raw.__func__ if isinstance(raw, classmethod) else raw
    else:
        real = getattr(bpe, name)
    assert _ast_shape(node) == _real_shape(real), f"{where}: {name}"


def _inline_calls(paths):
    for path in paths:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in SPAN.finditer(line):
                args = [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
                owner, _, attr = m.group(1).rpartition(".")
                name = attr if owner[:1].islower() else m.group(1)  # `tok.encode` -> `encode`
                yield f"{label(path)}:{lineno}", name, args


@pytest.mark.parametrize("lang", LANGUAGES)
def test_inline_calls_use_the_real_parameter_names(lang):
    callables = _starter_callables()
    checked = 0
    for place, name, args in _inline_calls(HANDOUTS[lang]):
        if name not in callables:
            continue  # not one of ours (e.g. `max(...)`, `sorted(set(text))`)
        options = []
        for fn in callables[name]:
            params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
            options.append(params)
            if args == params[: len(args)] and all(
                inspect.signature(fn).parameters[p].default is not inspect.Parameter.empty
                for p in params[len(args) :]
            ):
                break
        else:
            pytest.fail(f"{place}: `{name}({', '.join(args)})` but the starter has {options}")
        checked += 1
    assert checked >= 10


def test_the_span_pattern_sees_what_it_should():
    found = list(SPAN.finditer("see `merge(ids, pair, new_id)` and `tok.decode(ids)`, not `f(1)`"))
    assert [m.group(1) for m in found] == ["merge", "tok.decode"]
