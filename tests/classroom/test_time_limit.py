"""A learner's function that never returns (issue 35): the check stops it after its time
limit and says so in the lesson's language, instead of hanging the cell (and, after
Interrupt, showing a traceback through the package).

The limit is a watchdog thread that raises in the learner's code, not SIGALRM: it works
on Windows and off the main thread, which the tests below check by running the check in
a thread of its own. No test puts a limit on how long it may take: each records that the
call returned, with the time-out feedback, after at least the limit.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import _time_limit, lang
from qkv_helpers.classroom.checks import _feedback
from qkv_helpers.classroom.grading import graded

LIMIT = 0.3


def looping_softmax(x):  # a learner's loop whose counter never grows
    i = 0
    while i < len(x):
        x = x - x.max()
    return x


def looping_with_bare_except(x):
    while True:
        try:
            x = x + 0
        except:  # noqa: E722 - a learner's loop that would swallow a plain interrupt
            pass


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(_feedback, "CHECK_SECONDS", LIMIT)


@pytest.mark.parametrize("fn", [looping_softmax, looping_with_bare_except])
@pytest.mark.parametrize("language,words", [("en", "did not finish in 0.3 s"),
                                            ("ko", "0.3초 안에 끝나지 않았어요")])
def test_a_loop_that_never_ends_gets_the_lessons_message(short_limit, fn, language, words):
    lang.set_language(language)
    try:
        start = time.perf_counter()
        feedback = qk.checks.check_stable_softmax(fn)
        took = time.perf_counter() - start
    finally:
        lang.set_language("en")
    assert feedback.ok is False and feedback.key == "grade_timeout", feedback
    assert words in feedback.message and feedback.message.endswith("."), feedback.message
    assert took >= LIMIT
    assert not getattr(_time_limit._active, "on", False)  # the limit is gone


def test_the_limit_works_off_the_main_thread(short_limit):
    """What SIGALRM cannot do (and Windows has no SIGALRM at all)."""
    got = []
    worker = threading.Thread(target=lambda: got.append(
        qk.checks.check_stable_softmax(looping_softmax)))
    worker.start()
    worker.join()
    assert got and got[0].key == "grade_timeout", got


def test_a_right_answer_is_not_stopped_and_leaves_nothing_pending(short_limit):
    def mine(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    for _ in range(20):
        assert qk.checks.check_stable_softmax(mine).ok is True
    total = 0
    for i in range(300_000):  # a stop still pending would be raised here
        total += i
    time.sleep(2 * LIMIT)
    assert total == 299_999 * 300_000 // 2


def test_the_autograders_limit_decides_around_a_check(short_limit):
    """graded(seconds=0.2) around a check (whose own limit is 0.3 s): the outer limit
    stops the loop and graded says its own 0.2 s."""
    namespace = {"qk": qk, "looping_softmax": looping_softmax}
    feedback = graded("qk.checks.check_stable_softmax(looping_softmax)", seconds=0.2,
                      namespace=namespace)
    assert feedback.ok is False and "0.2 s" in feedback.message, feedback.message


def test_a_real_interrupt_still_interrupts(short_limit):
    def interrupted(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        qk.checks.check_stable_softmax(interrupted)


def test_in_ipython_the_cell_shows_the_message_and_no_traceback():
    cells = ["import qkv_helpers as qk; qk.set_language('ko')\n"
             "from qkv_helpers.classroom.checks import _feedback; _feedback.CHECK_SECONDS = 0.3",
             "def my_softmax(x):\n    while True:\n        pass",
             "qk.checks.check_stable_softmax(my_softmax)"]
    script = textwrap.dedent(f"""
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.colors = "nocolor"
        for cell in {cells!r}:
            shell.run_cell(cell)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    shown = done.stdout + done.stderr
    assert "0.3초 안에 끝나지 않았어요" in shown, shown
    assert "Traceback" not in shown and "KeyboardInterrupt" not in shown, shown
