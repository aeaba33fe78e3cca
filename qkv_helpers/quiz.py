"""The quiz of lesson 10: ten multiple-choice questions with feedback in the learner's language.

The questions' texts are in :mod:`qkv_helpers.lang` (keys ``quiz_q01`` ..., choices
``quiz_q01_c0`` ..., explanations ``quiz_q01_why``); here are the right answers and the
order the choices are shown in. :func:`grade` marks one answer; :func:`quiz_widget` shows
all the questions as radio buttons (it imports ipywidgets only when called).

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> grade(7, 1).ok                        # KV caching does not reduce memory
    True
    >>> grade(7, 0).ok
    False
"""

from __future__ import annotations

from dataclasses import dataclass

from .checks import Feedback
from .lang import t

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


# The right answer's display position varies from question to question.
QUESTIONS = (
    Question("quiz_q01", answer=0, order=(1, 2, 0, 3)),  # shape of Q
    Question("quiz_q02", answer=1, order=(1, 0, 2, 3)),  # why √d_k
    Question("quiz_q03", answer=1, order=(0, 2, 3, 1)),  # encoder sees everything
    Question("quiz_q04", answer=1, order=(0, 1, 2, 3)),  # permutation
    Question("quiz_q05", answer=0, order=(3, 1, 0, 2)),  # causal mask
    Question("quiz_q06", answer=0, order=(1, 0, 2, 3)),  # cross-attention's Q, K, V
    Question("quiz_q07", answer=1, order=(0, 2, 3, 1)),  # KV cache does not reduce memory
    Question("quiz_q08", answer=1, order=(2, 1, 0, 3)),  # queries are not cached
    Question("quiz_q09", answer=1, order=(0, 2, 1, 3)),  # the cache is for inference
    Question("quiz_q10", answer=1, order=(0, 2, 3, 1)),  # MQA/GQA shrink the cache
)


def grade(number: int, choice: int, questions=QUESTIONS) -> Feedback:
    """Mark the answer ``choice`` (a ``_c<i>`` index) to question ``number`` (from 1).

    Returns a :class:`qkv_helpers.checks.Feedback`: ok is True or False, and the message
    explains the right answer; ``choice=None`` gives "not answered yet".
    """
    if not 1 <= number <= len(questions):
        raise ValueError(f"number must be in 1..{len(questions)}, got {number}")
    question = questions[number - 1]
    if choice is None:
        return Feedback(None, t("check_not_answered"))
    if choice not in question.order:
        raise ValueError(f"choice must be one of {sorted(question.order)} for question "
                         f"{number}, got {choice!r}")
    key = "quiz_right" if choice == question.answer else "quiz_wrong"
    return Feedback(choice == question.answer, t(key, why=question.why))


def quiz_widget(questions=QUESTIONS):
    """All questions as radio buttons; choosing an answer shows feedback at once.

    A wrong choice may be changed. The caption counts the right answers.

    Returns
    -------
    qkv_helpers.widgets.Panel
        ``panel.controls["q01"]`` ... are the radio buttons (value = choice index or
        None); ``panel.state`` holds ``answers``, ``feedback`` (Feedback or None) and
        ``right``.

    Examples
    --------
    >>> panel = quiz_widget()
    >>> panel.state["right"], panel.state["answered"]
    (0, 0)
    >>> panel.controls["q07"].value = 1
    >>> panel.state["right"], panel.state["feedback"]["q07"].ok
    (1, True)
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

    def update(panel) -> None:
        answers = {name: radio.value for name, radio in radios.items()}
        feedback = {name: None if answers[name] is None else grade(number, answers[name],
                                                                   questions)
                    for number, name in enumerate(radios, start=1)}
        for name, note in notes.items():
            note.value = "" if feedback[name] is None else feedback[name]._repr_html_()
        right = sum(bool(f) for f in feedback.values() if f is not None)
        answered = sum(a is not None for a in answers.values())
        state.update(answers=answers, feedback=feedback, right=right, answered=answered)
        panel.state = state
        panel.caption.value = t("quiz_score", right=right, total=len(radios),
                                answered=answered)

    panel = Panel("quiz", radios, None, update)
    blocks = []
    for number, (name, question) in enumerate(zip(radios, questions), start=1):
        title = widgets.HTML(t("quiz_question", number=number, text=question.text))
        blocks.append(widgets.VBox([title, radios[name], notes[name]]))
    panel.children = [*blocks, panel.caption]
    return panel
