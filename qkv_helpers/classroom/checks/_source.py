"""What a learner's answer was computed from, read from the cell that assigned it.

Some exercises state a rule a value cannot show: lesson 07's mask "not with
``qk.causal_mask``", lesson 13's merge "from the six values only". An array does not
remember where it came from, so the check reads the learner's code: every cell that ran
(IPython's input history, else the source file of the caller), and follows their
assignments in order, marking every name whose value depends on a forbidden input. When
no source can be found (a script fed through ``exec``, a test), nothing is claimed: the
rule is not enforced rather than guessed.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _learner_frame():
    """The first frame outside this package (the learner's cell or script), or None."""
    frame = inspect.currentframe()
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE + os.sep):
            return frame
        frame = frame.f_back
    return None


def _assigns(tree: ast.AST, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False


def _parse(source):
    if not isinstance(source, str) or not source.strip():
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):  # a cell with magics (%timeit) or not Python
        return None


def assigning_cell(name: str):
    """The learner's code that ran before this check, as one parsed module, if some of it
    assigns ``name``; else None.

    In IPython that is every cell of the input history ``_ih``, in the order they ran
    (cells that are not Python, with magics, are left out), so a name assigned in an
    earlier cell is followed too; elsewhere, the caller's own source file if
    ``linecache`` has it.
    """
    frame = _learner_frame()
    if frame is None:
        return None
    lines = linecache.getlines(frame.f_code.co_filename, frame.f_globals)
    current = "".join(lines) if lines else None
    history = frame.f_globals.get("_ih")
    sources = [s for s in history if isinstance(s, str)] if isinstance(history, list) else []
    if current is not None and (not sources or sources[-1].strip() != current.strip()):
        sources.append(current)
    trees = [tree for tree in map(_parse, sources) if tree is not None]
    if not any(_assigns(tree, name) for tree in trees):
        return None
    return ast.Module(body=[node for tree in trees for node in tree.body], type_ignores=[])


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def _calls(node: ast.AST) -> set[str]:
    """The names of the functions ``node`` calls (``qk.causal_mask(...)`` → causal_mask)."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Name):
                found.add(n.func.id)
            elif isinstance(n.func, ast.Attribute):
                found.add(n.func.attr)
    return found


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}


def depends_on(tree: ast.AST, name: str, *, names=(), calls=(), given=(),
               made_from=()) -> bool:
    """Whether, in ``tree``, the value finally assigned to ``name`` depends on one of
    ``names`` (the forbidden inputs; assigning one from a name of ``made_from``, as the
    exercise cell makes ``s`` from ``rng``, keeps it forbidden, any other assignment
    frees the name for the learner's own use) or on a call of one of ``calls``.

    Statements are followed in order: an assignment marks its targets when its value
    reads a marked name or calls a forbidden function, and clears them otherwise; a
    ``def`` or a compound statement (``for``, ``if``, ``with``...) marks what it assigns
    when anything inside it is marked. Assignments to ``given`` names (the exercise's
    own inputs, such as lesson 13's ``first`` and ``second``) never mark them.

    >>> tree = ast.parse("p = qk.softmax(s)\\nmy_output = p @ v8")
    >>> depends_on(tree, "my_output", names={"s", "v8"})
    True
    >>> tree = ast.parse("m = max(first.m, second.m)\\nmy_output = first.output * m")
    >>> depends_on(tree, "my_output", names={"s", "v8"})
    False
    >>> depends_on(ast.parse("my_mask = qk.causal_mask(5)[3:]"), "my_mask", calls={"causal_mask"})
    True
    """
    sources, calls, given, made_from = set(names), set(calls), set(given), set(made_from)
    marked = set(sources)

    def tainted(node) -> bool:
        return bool(_names_read(node) & marked) or bool(_calls(node) & calls)

    def run(statements) -> None:
        for node in statements:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                value = node.value
                targets = (_targets(ast.Module(body=node.targets, type_ignores=[]))
                           if isinstance(node, ast.Assign) else _targets(node.target))
                bad = value is not None and tainted(value)
                if isinstance(node, ast.AugAssign):
                    bad = bad or bool(_targets(node.target) & marked)
                remade = value is not None and bool(_names_read(value) & made_from)
                for target in targets - given:
                    forbidden = bad or (target in sources and remade)
                    (marked.add if forbidden else marked.discard)(target)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if tainted(node):
                    marked.add(node.name)
                else:
                    marked.discard(node.name)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With,
                                   ast.AsyncWith, ast.Try)):
                inner = [n for field in ("body", "orelse", "finalbody") for n in
                         getattr(node, field, [])]
                for handler in getattr(node, "handlers", []):
                    inner.extend(handler.body)
                run(inner)
                if tainted(node):
                    marked.update(_targets(node) - given)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name.split(".")[-1] in calls:
                        marked.add(alias.asname or alias.name.split(".")[0])

    run(tree.body)
    return name in marked
