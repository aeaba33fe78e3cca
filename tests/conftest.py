"""Settings shared by every test.

Hypothesis runs with the ``ci`` profile unless ``HYPOTHESIS_PROFILE`` names another:

- ``ci`` (default): ``derandomize=True``, so every run on every machine tries the same
  examples and a failure in CI reproduces locally; ``deadline=None``, because the
  machine is shared and timing is not what these tests check; no example database
  (nothing written to ``.hypothesis/``).
- ``dev``: random examples and more of them, to hunt for new failures::

      HYPOTHESIS_PROFILE=dev .venv/bin/python -m pytest tests
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, database=None, max_examples=100, print_blob=True
)
settings.register_profile("dev", deadline=None, max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _restore_language():
    """A test that switches the package's language must not change it for the next test."""
    from qkv_helpers import lang

    before = lang.get_language()
    yield
    lang.set_language(before)
