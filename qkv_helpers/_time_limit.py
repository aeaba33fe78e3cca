"""A time limit on a learner's code: the checks and the autograder run it under one.

A learner's function that never returns (``while i < n:`` with ``i`` never growing) would
hang the check's cell; after Interrupt, the traceback would run through the package. Under
:func:`time_limit`, the learner's code is stopped after ``seconds`` by a :class:`TimeUp`
raised inside it, and the check turns that into "did not finish in N s" feedback.

How the code is stopped, and why not with a signal: ``signal.setitimer`` exists only on
Unix and only works in the main thread, so on Windows (where many learners run
JupyterLab) it would be no limit at all. Instead a watchdog thread waits for ``seconds``
and then raises :class:`TimeUp` in the thread that runs the learner's code, with CPython's
``PyThreadState_SetAsyncExc``: this works on every platform, in the IPython kernel's main
thread as in any other, and leaves the kernel's own SIGINT (Interrupt) and any SIGALRM
handler alone. The exception arrives between two bytecodes of the learner's Python, which
is where a runaway loop spends its time; a single long call into C (one huge numpy
operation, ``time.sleep``) is stopped when it returns. The watchdog raises again every
``REPEAT`` seconds, so a loop with a bare ``except:`` inside it cannot swallow the stop.

:class:`TimeUp` derives from KeyboardInterrupt, which every check lets through (a check
never turns an interrupt into feedback), so only the owner of the limit catches it.
Limits nest: inside a running limit (the autograder's around a check), an inner one adds
nothing and the outer one decides.
"""

from __future__ import annotations

import ctypes
import threading
from contextlib import contextmanager

__all__ = ["CHECK_SECONDS", "TimeUp", "time_limit"]

#: How long a check lets the learner's code run, in seconds (the autograder's default too).
CHECK_SECONDS = 10.0

#: After the first stop, how often the watchdog raises again (a bare ``except:`` caught it).
REPEAT = 0.05

_active = threading.local()


class TimeUp(KeyboardInterrupt):
    """Raised inside the learner's code when its time is up."""


def _raise_in(thread_id: int, exception) -> None:
    """Raise ``exception`` (a class, or None to cancel a pending one) in thread ``thread_id``
    at its next bytecode."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exception) if exception
                                               else ctypes.c_void_p(0))


@contextmanager
def time_limit(seconds: float):
    """Run the ``with`` body for at most ``seconds``; then :class:`TimeUp` is raised in it.

    Yields True if this limit is the one that runs, False inside another (which decides).

    >>> import time
    >>> try:
    ...     with time_limit(0.1):
    ...         while True:
    ...             pass
    ... except TimeUp:
    ...     print("stopped")
    stopped
    >>> with time_limit(5) as mine:
    ...     with time_limit(1) as inner:
    ...         mine, inner
    (True, False)
    """
    if getattr(_active, "on", False):  # an outer limit is running: it decides
        yield False
        return
    target = threading.get_ident()
    lock = threading.Lock()
    finished = threading.Event()
    fired = []

    def watch():
        wait = seconds
        while not finished.wait(wait):
            with lock:
                if finished.is_set():
                    return
                _raise_in(target, TimeUp)
                fired.append(True)
            wait = REPEAT

    watchdog = threading.Thread(target=watch, name="qkv-time-limit", daemon=True)
    _active.on = True
    try:
        watchdog.start()  # (a very short limit may stop even this)
        yield True
    finally:
        while True:  # a stop may arrive even here: retry until the watchdog is told
            try:
                with lock:
                    finished.set()  # the watchdog raises nothing more after this
                break
            except TimeUp:
                continue
        if fired:  # raised, perhaps not yet delivered: it arrives within a few bytecodes,
            try:   # so take it here. (Cancelling it instead, PyThreadState_SetAsyncExc with
                for _ in range(1000):  # NULL, left CPython 3.11 hanging in the next call
                    pass               # made under sys.setprofile, as lesson 14's checks do.)
            except TimeUp:
                pass
        if watchdog.ident is not None:
            watchdog.join()
        _active.on = False
