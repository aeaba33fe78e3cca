"""Settings for every test and doctest, in tests/ and in qkv_helpers/ (doctests).

A plotting test or docstring example draws a pyplot figure and leaves it open, as a notebook
does; closed here after each test, so that a long run never reaches matplotlib's limit of 20
open figures (a warning that the test settings turn into an error).
"""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
