"""Settings for every test and doctest, in tests/ and in qkv_helpers/ (doctests).

A plotting test or docstring example draws a pyplot figure and leaves it open, as a notebook
does; closed here after each test, so that a long run never reaches matplotlib's limit of 20
open figures (a warning that the test settings turn into an error).

numpy's print options are restored after each test too: a lesson's cells run in-process
(tests/classroom/test_checks_lazy.py) set them as the notebooks do, and a docstring example run next
on the same worker (``make test`` runs on two) would print with the lesson's precision.
"""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture(autouse=True)
def _restore_print_options():
    import numpy as np

    before = np.get_printoptions()
    yield
    np.set_printoptions(**before)
