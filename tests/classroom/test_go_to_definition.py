"""Go to definition (jedi, as Jupyter and editors use it) finds every ``qk.`` name a lesson uses.

The notebooks' sources (notebooks/src/*.py) are scanned for ``qk.NAME`` and
``qk.NAME.ATTR``; for each, jedi must resolve it to its definition inside the package:
a module, a class or a function of qkv_helpers (not nothing, and not a lazy-import hook).
"""

from __future__ import annotations

import pathlib
import re

import pytest

jedi = pytest.importorskip("jedi")  # installed with ipython

ROOT = pathlib.Path(__file__).resolve().parents[2]
USE = re.compile(r"\bqk\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?")


def lesson_names() -> list[str]:
    """Every ``qk.NAME`` and ``qk.NAME.ATTR`` in the lessons' sources, sorted."""
    names = set()
    for path in sorted((ROOT / "notebooks" / "src").glob("*.py")):
        for first, second in USE.findall(path.read_text(encoding="utf-8")):
            names.add(first)
            if second:
                names.add(f"{first}.{second}")
    return sorted(names)


def test_the_lessons_use_qk_names():
    names = lesson_names()
    assert {"softmax", "scaled_dot_product_attention", "KVCache", "apply_rope"} <= set(names)
    assert len(names) > 40


def test_jedi_resolves_every_qk_name_the_lessons_use():
    project = jedi.Project(ROOT)
    unresolved = []
    for name in lesson_names():
        code = f"import qkv_helpers as qk\nqk.{name}\n"
        script = jedi.Script(code, path=ROOT / "scratch.py", project=project)
        found = script.goto(2, len(f"qk.{name}") - 1, follow_imports=True)
        inside = [d for d in found if (d.module_name or "").startswith("qkv_helpers")
                  and d.type in ("module", "class", "function", "statement", "instance")
                  and d.name == name.split(".")[-1]]
        if not inside:
            unresolved.append(f"qk.{name} -> {[(d.module_name, d.name, d.type) for d in found]}")
    assert unresolved == []


@pytest.mark.parametrize("formula", ["softmax_unchecked", "attention_unchecked"])
def test_the_formulas_the_package_calls_by_name_resolve(formula):
    """softmax and scaled_dot_product_attention call their formulas by name (no longer the
    attribute ``.unchecked``, which go-to-definition could not follow): every call in
    attention.py goes to the function's ``def``."""
    path = ROOT / "qkv_helpers" / "attention.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    script = jedi.Script(path=path, project=jedi.Project(ROOT))
    defined = next(i for i, line in enumerate(lines, 1) if line.startswith(f"def {formula}("))
    calls = [(i, line.index(f"{formula}(")) for i, line in enumerate(lines, 1)
             if f"{formula}(" in line and not line.startswith("def ")]
    assert len(calls) >= 2
    for line, column in calls:
        found = script.goto(line, column + 1)
        assert [(d.module_name, d.line, d.type) for d in found] == [
            ("qkv_helpers.attention", defined, "function")], (line, found)
