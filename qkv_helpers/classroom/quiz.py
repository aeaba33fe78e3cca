"""The quiz of lesson 10: ten multiple-choice questions with feedback in the learner's language.

The questions' texts are in :mod:`qkv_helpers.lang` (keys ``quiz_q01`` ..., choices
``quiz_q01_c0`` ..., a hint ``quiz_q01_hint`` that points to the lesson, an explanation
``quiz_q01_why``); here are the right answers and the order the choices are shown in.
:func:`grade` marks one answer: a first wrong choice gets the hint, the explanation comes
with the right choice or after a second wrong one. :func:`quiz_widget` shows all the
questions as radio buttons (it imports ipywidgets only when called) and scores first tries.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> grade(7, 1).ok                        # the cache keeps memory between steps
    True
    >>> grade(7, 0).ok
    False
    >>> grade(7, True)
    Traceback (most recent call last):
    ...
    TypeError: choice must be one of the options [0, 1, 2, 3] for question 7 (an int), got True
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang import t
from .checks import Feedback

__all__ = ["QUESTIONS", "Question", "grade", "quiz_widget"]


@dataclass(frozen=True)
class Question:
    """One question: its language key, its right choice, and the order choices are shown in."""

    key: str
    """e.g. ``"quiz_q07"``; the texts are ``key``, ``key + "_c0"`` ..., ``key + "_why"``."""
    answer: int
    """Index of the right choice (the ``_c<i>`` key)."""
    order: tuple[int, ...] = (0, 1, 2, 3)
    """The choices' indices in the order they are shown."""

    @property
    def text(self) -> str:
        return t(self.key)

    @property
    def choices(self) -> list[str]:
        """The choices' texts in display order."""
        return [t(f"{self.key}_c{i}") for i in self.order]

    @property
    def why(self) -> str:
        return t(f"{self.key}_why")

    @property
    def hint(self) -> str:
        return t(f"{self.key}_hint")


# The right answer's display position varies from question to question.
QUESTIONS = (
    Question("quiz_q01", answer=0, order=(1, 2, 0, 3)),  # shape of Q
    Question("quiz_q02", answer=1, order=(1, 0, 2, 3)),  # why √d_k
    Question("quiz_q03", answer=1, order=(0, 2, 3, 1)),  # encoder sees everything
    Question("quiz_q04", answer=1, order=(0, 1, 2, 3)),  # permutation
    Question("quiz_q05", answer=0, order=(3, 1, 0, 2)),  # causal mask
    Question("quiz_q06", answer=0, order=(1, 0, 2, 3)),  # cross-attention's Q, K, V
    Question("quiz_q07", answer=1, order=(0, 2, 3, 1)),  # the cache keeps memory, saves compute
    Question("quiz_q08", answer=1, order=(2, 1, 0, 3)),  # queries are not cached
    Question("quiz_q09", answer=1, order=(0, 2, 1, 3)),  # the cache is for inference
    Question("quiz_q10", answer=1, order=(3, 0, 2, 1)),  # MQA/GQA shrink the cache
)


def grade(number: int, choice, questions=QUESTIONS, wrong_before: int = 0) -> Feedback:
    """Mark the answer ``choice`` (a ``_c<i>`` index) to question ``number`` (from 1).

    Returns a :class:`qkv_helpers.classroom.checks.Feedback`: ok is True or False. A right choice
    comes with the explanation; a wrong one with a hint pointing to the lesson, or, when
    ``wrong_before`` > 0 (the learner already chose wrong once), with the right answer and
    the explanation. ``choice=None`` gives "not answered yet".

    Raises
    ------
    ValueError
        ``number`` is not a question's number.
    TypeError
        ``choice`` is not one of the question's option indices (a bool is not one).
    """
    if isinstance(number, bool) or not isinstance(number, int) or not (
            1 <= number <= len(questions)):
        raise ValueError(t("err_quiz_number", n=len(questions), got=repr(number)))
    question = questions[number - 1]
    if choice is None:
        return Feedback(None, t("check_not_answered"))
    if isinstance(choice, bool) or not isinstance(choice, int) or choice not in question.order:
        raise TypeError(t("err_quiz_choice", options=sorted(question.order), number=number,
                          got=repr(choice)))
    if choice == question.answer:
        return Feedback(True, t("quiz_right", why=question.why))
    if wrong_before:
        return Feedback(False, t("quiz_wrong_again", why=question.why,
                                 answer=t(f"{question.key}_c{question.answer}")))
    return Feedback(False, t("quiz_wrong", hint=question.hint))


def quiz_widget(questions=QUESTIONS):
    """All questions as radio buttons; choosing an answer shows feedback at once.

    A wrong choice may be changed: the first wrong choice shows a hint, the second the
    explanation. The caption counts the questions answered right at the first try.

    Returns
    -------
    qkv_helpers.classroom.widgets.Panel
        ``panel.controls["q01"]`` ... are the radio buttons (value = choice index or
        None); ``panel.state`` holds ``answers``, ``feedback`` (Feedback or None),
        ``first`` (each question's first choice), ``right`` (first tries right) and
        ``answered``.

    Examples
    --------
    >>> panel = quiz_widget()
    >>> panel.state["right"], panel.state["answered"]
    (0, 0)
    >>> panel.controls["q07"].value = 0          # wrong: a hint
    >>> panel.controls["q07"].value = 1          # right, but not at the first try
    >>> panel.state["right"], panel.state["feedback"]["q07"].ok
    (0, True)
    """
    import ipywidgets as widgets

    from .widgets._live import Panel

    radios, notes = {}, {}
    for number, question in enumerate(questions, start=1):
        name = f"q{number:02d}"
        radios[name] = widgets.RadioButtons(
            options=[(text, i) for text, i in zip(question.choices, question.order)],
            value=None, layout=widgets.Layout(width="auto"))
        notes[name] = widgets.HTML()
    state: dict = {}
    first: dict = {name: None for name in radios}  # each question's first choice
    wrong_count: dict = {name: 0 for name in radios}
    shown: dict = {name: None for name in radios}  # the last choice graded

    def update(panel) -> None:
        answers = {name: radio.value for name, radio in radios.items()}
        feedback = {}
        for number, name in enumerate(radios, start=1):
            choice = answers[name]
            if choice is None:
                feedback[name] = None
                continue
            if first[name] is None:
                first[name] = choice
            if choice != shown[name]:  # a new choice: grade it, then count it if wrong
                note = grade(number, choice, questions, wrong_before=wrong_count[name])
                wrong_count[name] += note.ok is False
                shown[name] = choice
                state.setdefault("graded", {})[name] = note
            feedback[name] = state["graded"][name]
        for name, note in notes.items():
            note.value = "" if feedback[name] is None else feedback[name]._repr_html_()
        right = sum(first[name] == question.answer
                    for name, question in zip(radios, questions) if first[name] is not None)
        answered = sum(f is not None for f in first.values())
        state.update(answers=answers, feedback=feedback, first=dict(first), right=right,
                     answered=answered)
        panel.state = state
        panel.caption.value = t("quiz_score", right=right, total=len(radios),
                                answered=answered)

    panel = Panel("quiz", radios, None, update)
    blocks = []
    for number, (name, question) in enumerate(zip(radios, questions), start=1):
        title = widgets.HTML(t("quiz_question", number=number, text=question.text))
        blocks.append(widgets.VBox([title, radios[name], notes[name]]))
    panel.children = [*blocks, panel.caption]
    panel.add_class("course-quiz")  # the slide decks lay the questions out in two columns
    return panel
