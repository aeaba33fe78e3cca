"""A function's code as a lesson shows it: its docstring left out.

Lesson 14 prints the package's backward functions so a learner reads the formulas. Their
docstrings are written in English for the package's readers; the lesson's own prose says
the same in the lesson's language, so the printed code leaves the docstring out. Comments
stay as they are.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types

from .. import _validate as validate


def code_without_docstring(fn) -> str:
    """The source of the function ``fn`` (decorators included), without its docstring.

    >>> def area(width, height):
    ...     '''The area of a rectangle.'''
    ...     return width * height  # (,)
    >>> print(code_without_docstring(area), end="")
    def area(width, height):
        return width * height  # (,)
    """
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    validate.instance_of(fn, "fn", types.FunctionType, "e.g. backprop.softmax_backward")
    lines = textwrap.dedent(inspect.getsource(fn)).splitlines(keepends=True)
    definition = ast.parse("".join(lines)).body[0]  # the def, its decorators before it
    first = definition.body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):  # a docstring: lines first..end, 1-based
        del lines[first.lineno - 1:first.end_lineno]
    return "".join(lines)
