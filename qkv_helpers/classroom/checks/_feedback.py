"""The contract every check keeps: it returns a :class:`Feedback`, and never raises."""

from __future__ import annotations

import functools
import html
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..._time_limit import CHECK_SECONDS, TimeUp, time_limit
from ...lang import t


@dataclass(frozen=True)
class Feedback:
    """The result of a check: ``ok`` is True (right), False (wrong) or None (not answered)."""

    ok: bool | None
    message: str
    label: str = ""
    """Shown before the message: "Solution check" on a solution cell's check."""
    key: str = field(default="", compare=False)
    """The message's key in the language tables (what the checks decide on, never the text)."""

    @property
    def symbol(self) -> str:
        return {True: "✅", False: "❌", None: "✏️"}[self.ok]

    def as_solution(self) -> Feedback:
        """The same verdict, labelled as the check of the solution cell."""
        return Feedback(self.ok, self.message, t("check_solution_label"), self.key)

    def __bool__(self) -> bool:
        return self.ok is True

    def _text(self) -> str:
        return f"{self.label}: {self.message}" if self.label else self.message

    def __repr__(self) -> str:
        return f"{self.symbol} {self._text()}"

    def _repr_html_(self) -> str:
        colour = {True: "#1b7837", False: "#b2182b", None: "#555555"}[self.ok]
        label = f"<b>{html.escape(self.label)}:</b> " if self.label else ""
        return (f'<div style="border-left: 4px solid {colour}; padding: 4px 10px; '
                f'font-size: 1.05em">{self.symbol} {label}{html.escape(self.message)}</div>')


def not_answered(answer) -> bool:
    """True for an answer still left as ``...`` (or None)."""
    return answer is Ellipsis or answer is None


def right(detail_key: str = "check_right", **values) -> Feedback:
    return Feedback(True, t(detail_key, **values), key=detail_key)


def wrong(key: str, **values) -> Feedback:
    return Feedback(False, t(key, **values), key=key)


def unanswered() -> Feedback:
    return Feedback(None, t("check_not_answered"), key="check_not_answered")


def call_watched(fn, args, forbidden: set) -> tuple:
    """``fn(*args)``, and the names of the functions in ``forbidden`` (code objects) it called
    on the way: an exercise that asks the learner to write what the package has can tell
    whether they called the package's own. A profiler sees every Python call, however the
    function was reached (a module attribute, an alias, ``from … import``, a wrapper).
    """
    used = []

    def watch(frame, event, _arg):
        if event == "call" and frame.f_code in forbidden:
            used.append(frame.f_code.co_name)

    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        return fn(*args), used
    finally:
        sys.setprofile(previous)


def never_raises(check):
    """Make ``check`` keep the contract: any exception becomes "could not read" feedback.

    The checks below handle every answer they know how to read; this is the net under
    them, for an object whose ``__array__``, ``__len__`` or ``__eq__`` itself raises.
    The check runs under a time limit (``CHECK_SECONDS``): a learner's function that never
    returns gets "did not finish in N s", in the lesson's language, not a hung cell.
    """
    import inspect

    signature = inspect.signature(check)

    @functools.wraps(check)
    def safe(*args, **kwargs):
        owner = False
        try:
            with time_limit(CHECK_SECONDS) as owner, warnings.catch_warnings(), \
                    np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                feedback = check(*args, **kwargs)
        except TimeUp:  # the learner's function never returned: say so, no traceback
            if not owner:
                raise  # the limit around this check (the autograder's) reports it
            return wrong("grade_timeout", seconds=f"{CHECK_SECONDS:g}")
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - the learner's object misbehaved
            return wrong("check_unreadable", name=_name_of(signature, args, kwargs),
                         error=_describe_error(error))
        return feedback
    return safe


def _name_of(signature, args, kwargs) -> str:
    """The ``name`` a check was called with (or its default)."""
    try:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        name = bound.arguments.get("name", "answer")
    except TypeError:
        return "answer"
    return name if isinstance(name, str) else "answer"


def _describe_error(error: BaseException) -> str:
    try:
        text = str(error)
    except Exception:  # noqa: BLE001
        text = ""
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
