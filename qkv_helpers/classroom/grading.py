"""The autograder's side of an exercise: what an nbgrader test cell calls.

``tools/assignments.py`` turns each exercise into an answer cell (the learner's code and the
lesson's checker call) followed by a locked test cell::

    from qkv_helpers.classroom.grading import graded
    _feedback = graded("qk.checks.check_stable_softmax(my_softmax)", seconds=10)
    assert _feedback.ok is True, _feedback.message

:func:`graded` grades the answer cell just above it, running the learner's code once:

- the autograder stopped that cell (nbgrader interrupts a cell that runs longer than its
  time limit): the grade is "did not finish in N s", and the learner's function is not called
  again;
- that cell stopped with an exception of the learner's own code before its check ran: the
  grade says so, with the exception (not as an error of the grader);
- that cell ended with this very checker call and showed its :class:`Feedback`: that
  Feedback is the grade (the check is not run a second time);
- otherwise (the learner moved or removed the check) the checker call runs here, stopped
  after ``seconds`` (``_time_limit``: on every platform, in any thread).

The checker call is a string of the lesson's code, evaluated in the notebook's namespace.
"""

from __future__ import annotations

import ast
import sys
import traceback
from pathlib import Path

from .._time_limit import TimeUp, time_limit
from ..lang import t
from .checks import Feedback

__all__ = ["graded", "timed_out_feedback"]


def timed_out_feedback(seconds: float) -> Feedback:
    """The grade of an answer whose code did not finish in ``seconds``."""
    return Feedback(False, t("grade_timeout", seconds=f"{seconds:g}"))


def _calls(cell_source: str, call: str) -> list[bool]:
    """For each top-level statement of the cell: is it ``call`` (alone or assigned)?"""
    try:
        body = ast.parse(cell_source).body
        wanted = ast.dump(ast.parse(call.strip(), mode="eval").body)
    except SyntaxError:
        return []
    return [isinstance(s, (ast.Expr, ast.Assign)) and ast.dump(s.value) == wanted
            for s in body]


def _learners_error(error: BaseException | None) -> bool:
    """Whether the answer cell stopped with an exception of the learner's code: raised there,
    not inside the course's checks or grading (a checker reports the learner's errors as a
    Feedback, so an exception from inside one is the grader's)."""
    if error is None or isinstance(error, KeyboardInterrupt):
        return False
    here = Path(__file__).resolve().parent
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename).resolve()
        if path == here / "grading.py" or here / "checks" in path.parents:
            return False
    return True


def _last_cell():
    """IPython's result of the cell run just before this one, or None outside IPython."""
    shell = sys.modules.get("IPython")
    shell = shell.get_ipython() if shell is not None else None
    return getattr(shell, "last_execution_result", None) if shell is not None else None


def graded(call: str, seconds: float, namespace: dict | None = None) -> Feedback:
    """The Feedback that grades the answer cell above, for the checker call ``call``.

    ``namespace`` is where ``call`` runs (default: the caller's globals, the notebook's).

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> import qkv_helpers as qk
    >>> def mine(x):
    ...     return x
    >>> graded("qk.checks.check_value(mine(2), 2, 'x')", seconds=5).ok
    True
    >>> def loops(x):
    ...     while True:
    ...         pass
    >>> graded("qk.checks.check_value(loops(2), 2, 'x')", seconds=0.2)
    ❌ Your code did not finish in 0.2 s: look at your loop (does it ever end?).
    """
    if namespace is None:
        namespace = sys._getframe(1).f_globals
    last = _last_cell()
    raw = getattr(getattr(last, "info", None), "raw_cell", None)
    if last is not None and raw is not None:
        calls = _calls(raw, call)
        if isinstance(last.error_in_exec, KeyboardInterrupt) and any(calls):
            return timed_out_feedback(seconds)  # stopped by the autograder's time limit
        if any(calls) and _learners_error(last.error_in_exec):
            error = last.error_in_exec  # the learner's own exception, not the grader's
            return Feedback(False, t("grade_answer_raised",
                                     error=f"{type(error).__name__}: {error}"))
        if (calls and calls[-1] and isinstance(last.result, Feedback)
                and last.error_in_exec is None):
            return last.result
    try:
        with time_limit(seconds):
            feedback = eval(call, namespace)  # noqa: S307 - the lesson's own checker call
    except TimeUp:
        return timed_out_feedback(seconds)
    except Exception as error:  # noqa: BLE001 - e.g. the learner deleted the function
        return Feedback(False, t("grade_error", call=call.strip(),
                                 error=f"{type(error).__name__}: {error}"))
    if not isinstance(feedback, Feedback):
        return Feedback(False, t("check_unreadable", name=call, error=type(feedback).__name__))
    return feedback
