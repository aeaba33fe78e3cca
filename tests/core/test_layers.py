"""The package's layers: ``import qkv_helpers`` loads the math only, imports never run up.

The layers, bottom to top (qkv_helpers/README.md, "Layers"), and the folders that show them:

0. **base**: the texts (``lang``), the math modules' lazy ``t`` (``_text``), argument checks
   (``_validate``), ``_threads``, ``_time_limit``: they import nothing of the layers above.
1. **math**: every other module at the top, one per idea (``attention``, ``masks``,
   ``kv_cache/`` ...): numpy.
2. **measurements**: ``measure/``, what measures the math (memory, time, costs).
3. **classroom**: ``classroom/``, exercise checks, quiz, grading, plots, widgets, style.
4. **front**: ``qkv_helpers/__init__.py``, which names the lessons' ``qk.`` names.

A module imports only from its own layer or the ones below (a function's import too), and
no two modules import each other, directly or around a circle; nor do two of the top's
modules and folders (``kv_cache/`` counted as one). The graph is read from the
source (the AST), so a lazy import inside a function counts; imports under
``if TYPE_CHECKING:`` (for editors only) do not.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "qkv_helpers"

BASE = {"lang", "_text", "_threads", "_validate", "_time_limit"}
LAYERS = ("base", "math", "measurements", "classroom", "front")

# Loaded on first use only: not by ``import qkv_helpers``.
NOT_AT_IMPORT = ("matplotlib", "ipywidgets", "IPython", "threadpoolctl", "qkv_helpers.lang",
                 "qkv_helpers.classroom")
CLASSROOM = ("checks", "plots", "widgets", "quiz", "grading", "style", "source_code")


def layer_of(module: str) -> str:
    """The layer of ``module``, named without ``qkv_helpers.`` (``""`` is the package)."""
    if module == "":
        return "front"
    if module in BASE:
        return "base"
    if module.split(".")[0] == "measure":
        return "measurements"
    if module.split(".")[0] == "classroom":
        return "classroom"
    return "math"


def modules() -> dict[str, pathlib.Path]:
    """Every module of the package by its dotted name (``kv_cache.plain``; ``""`` for it)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return skip


def import_graph() -> dict[str, set[str]]:
    """For each module, the package's modules it imports (anywhere in its file)."""
    found = modules()
    graph = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_only(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".") if package else []
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                elif (node.module or "").startswith("qkv_helpers"):
                    target = node.module.removeprefix("qkv_helpers").lstrip(".")
                else:
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}".lstrip(".")
                    targets.add(sub if sub in found else target)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "qkv_helpers":
                        targets.add(alias.name.removeprefix("qkv_helpers").lstrip("."))
        graph[name] = {target for target in targets if target != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each strongly connected set of two or more modules."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_imports_we_know():
    graph = import_graph()
    assert "attention" in graph["decoding"]  # from .attention import ...
    assert "_validate" in graph["attention"]  # from . import _validate as validate
    assert "kv_cache.arithmetic" in graph["measure.kv_cache_experiments"]  # ..kv_cache.arithmetic
    assert "decoding" in graph["measure.kv_cache_experiments"]  # from ..decoding import
    assert "tiled" in graph["measure.long_context"]  # an import inside a function counts
    assert "lang" in graph["_text"]  # the lazy t's import, inside t
    assert "classroom.checks" not in graph[""]  # under TYPE_CHECKING only
    assert {layer_of(m) for m in graph} == set(LAYERS)


def test_circles_are_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle():
    assert circles(import_graph()) == []


def top_level(module: str) -> str:
    """The module or folder at the package's top that holds ``module``."""
    return module.split(".")[0]


def test_no_import_circle_between_the_tops_modules_and_folders():
    # kv_cache/ imported the decoder (its experiments) and the decoder kv_cache/: a circle
    # of folders that module-level imports do not show
    tops = {}
    for module, targets in import_graph().items():
        if module:
            top = top_level(module)
            tops.setdefault(top, set()).update(
                top_level(target) for target in targets if target and top_level(target) != top)
    assert circles(tops) == []


def test_each_folder_holds_one_layer():
    found = {}
    for module in modules():
        if module:
            found.setdefault(top_level(module), set()).add(layer_of(module))
    assert found["measure"] == {"measurements"}
    assert found["classroom"] == {"classroom"}
    assert found["kv_cache"] == {"math"}
    assert [top for top, layers in found.items() if len(layers) > 1] == []


def test_no_import_runs_up_a_layer():
    upward = [f"{m or 'qkv_helpers'} ({layer_of(m)}) imports {target} ({layer_of(target)})"
              for m, targets in sorted(import_graph().items()) for target in sorted(targets)
              if LAYERS.index(layer_of(target)) > LAYERS.index(layer_of(m))]
    assert upward == []


def _fresh_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_import_loads_the_math_only():
    loaded = _fresh_python(
        "import sys, qkv_helpers\n"
        f"print(' '.join(m for m in sys.modules if m in {NOT_AT_IMPORT!r}"
        f" or m.startswith(tuple(n + '.' for n in {NOT_AT_IMPORT!r}))))")
    assert loaded == ""


def test_the_math_modules_import_none_of_the_classroom():
    # each math module alone, in a fresh process: nothing of the classroom or the texts
    math_modules = sorted(m for m in modules() if layer_of(m) == "math")
    code = ("import importlib, sys\n"
            f"for name in {math_modules!r}:\n"
            "    importlib.import_module('qkv_helpers.' + name)\n"
            f"print(' '.join(m for m in sys.modules if m in {NOT_AT_IMPORT!r}"
            f" or m.startswith(tuple(n + '.' for n in {NOT_AT_IMPORT!r}))))")
    assert _fresh_python(code) == ""


@pytest.mark.parametrize("name", CLASSROOM)
def test_the_classroom_loads_on_first_use(name):
    out = _fresh_python(
        "import sys, qkv_helpers as qk\n"
        f"before = 'qkv_helpers.classroom.{name}' in sys.modules\n"
        f"module = qk.{name}\n"
        f"print(before, module.__name__, 'qkv_helpers.classroom.{name}' in sys.modules)")
    assert out == f"False qkv_helpers.classroom.{name} True"


def test_the_classroom_folder_holds_every_lazy_module():
    import qkv_helpers as qk

    assert {name for name, module in qk._LAZY_MODULES.items()
            if module.startswith("classroom.")} == set(CLASSROOM)


def test_texts_load_on_first_use():
    out = _fresh_python(
        "import sys, qkv_helpers as qk\n"
        "qk.set_language('en')\n"
        "print(qk.get_language(), qk.t is sys.modules['qkv_helpers.lang'].t)\n"
        "try:\n"
        "    qk.softmax([])\n"
        "except ValueError as err:\n"
        "    print(type(err).__name__)")
    assert out == "en True\nValueError"


def test_an_error_from_the_math_is_in_the_learners_language():
    from qkv_helpers import _text, lang, softmax

    before = lang.get_language()
    try:
        for language in ("ko", "en"):
            lang.set_language(language)
            with pytest.raises(ValueError) as err:
                softmax(5.0)
            assert str(err.value) == lang.t("err_softmax_scalar") == _text.t("err_softmax_scalar")
    finally:
        lang.set_language(before)


def test_unknown_attributes_still_fail():
    import qkv_helpers as qk

    with pytest.raises(AttributeError, match="no_such_name"):
        qk.no_such_name  # noqa: B018
    assert {"checks", "plots", "widgets", "t"} <= set(dir(qk))
