"""Settings shared by every test.

Hypothesis runs with the ``ci`` profile unless ``HYPOTHESIS_PROFILE`` names another:

- ``ci`` (default): ``derandomize=True``, so every run on every machine tries the same
  examples and a failure in CI reproduces locally; ``deadline=None``, because the
  machine is shared and timing is not what these tests check; no example database
  (nothing written to ``.hypothesis/``).
- ``dev``: random examples and more of them, to hunt for new failures::

      HYPOTHESIS_PROFILE=dev .venv/bin/python -m pytest tests

Both cores (``make test`` runs ``pytest -n 2 --dist loadgroup``, pytest-xdist): tests that
share an expensive, once-per-process result are put in one xdist group here, so that the
result is computed once per run, on one worker, instead of once per worker:

- the English student copy of a lesson, executed once (``test_checks_lazy.lesson_run``) and
  reused by the lazy-student test and the checker contract (``tests/classroom/test_checks.py``):
  group ``lesson-<stem>``;
- a lesson's two notebooks under strict nbval (their cells run in order, in one kernel per
  notebook) join that group too: the lazy student's Run All in this run
  (``test_shipped_notebook_after_run_all_shows_no_answer[...-fresh]``) is moved after the
  notebook's cells, and reads the outputs nbval's kernel just gave (:func:`nbval_outputs`)
  instead of executing the notebook again;
- tests/tooling/test_classroom.py, whose module fixtures build the student copies, the slide decks
  and the site once for all lessons: group ``module-test_classroom``.

Everything else goes to whichever worker is free. Tests write only below ``tmp_path``
(unique per worker), so no two workers share a folder or a port.

Each notebook is executed as few times as the tests need: once by make test's strict nbval
(whose saved outputs the unit tests then read, e.g. the lazy student's Run All), once in
this process per lesson (``lesson_run``, whose namespace the exercises are tried in).
Tests that execute every notebook once more, or run a whole class (nbgrader autograding five
submissions, a Jupyter server culling kernels), are marked ``slow`` (pyproject.toml): make test
leaves them out, make test-all (CI) runs them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib
import pytest
from hypothesis import settings

# One pytest run holds the unit tests and the notebooks (make test). The tests draw with
# Agg in this process; the notebooks' kernels, started from this process's environment,
# must draw inline as in JupyterLab (ipykernel chooses inline only when MPLBACKEND is unset),
# so the backend is chosen here and not through the environment.
matplotlib.use("Agg")
os.environ.pop("MPLBACKEND", None)

settings.register_profile(
    "ci", derandomize=True, deadline=None, database=None, max_examples=100, print_blob=True
)
settings.register_profile("dev", deadline=None, max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Test modules whose tests take a lesson's stem as their first parameter and run that
# lesson's student copy once per process (``test_checks_lazy.lesson_run``, cached there).
LESSON_RUN_MODULES = {"test_checks_lazy", "test_checks"}
# Test modules whose module fixtures build something for every lesson at once (the student
# copies, the slide decks, the site; the course's wheel in a fresh venv): all their tests on
# one worker.
ONE_WORKER_MODULES = {"test_classroom", "test_course_package"}
_STEM_PARAM = re.compile(r"\[(\d\d_[A-Za-z0-9_]+?)(?:-[^\]]*)?\]$")
# The lazy student's Run All in this run: it reads the outputs of the notebook's nbval cells.
_FRESH_RUN_ALL = re.compile(r"^tests/classroom/test_checks_lazy\.py::"
                            r"test_shipped_notebook_after_run_all_shows_no_answer"
                            r"\[(\d\d_[A-Za-z0-9_]+)-(ko|en)-fresh\]$")


def notebook_read_by(nodeid: str) -> str | None:
    """The notebook (as nbval's node ids name it) whose nbval outputs a test reads, or None.

    >>> notebook_read_by("tests/classroom/test_checks_lazy.py::"
    ...                  "test_shipped_notebook_after_run_all_shows_no_answer[03_scaling-ko-fresh]")
    'notebooks/ko/03_scaling.ipynb'
    """
    found = _FRESH_RUN_ALL.match(nodeid)
    return f"notebooks/{found.group(2)}/{found.group(1)}.ipynb" if found else None


def xdist_group_of(nodeid: str) -> str | None:
    """The group of a test, from its node id (see the module's docstring), or None.

    ``tests/classroom/test_checks.py::test_every_exercise_check_keeps_the_contract[03_scaling-0]``
    is in ``lesson-03_scaling``, every test of tests/tooling/test_classroom.py in
    ``module-test_classroom``, every cell of ``notebooks/ko/03_scaling.ipynb`` (and of
    notebooks/en/03_scaling.ipynb) in ``lesson-03_scaling`` too,
    ``tests/core/test_softmax.py::test_rows_sum_to_one`` in none.
    """
    path, _, rest = nodeid.partition("::")
    if path.endswith(".ipynb"):  # nbval: a notebook's cells run in order, in one kernel
        lesson = re.match(r"\d\d_", Path(path).stem)
        return f"lesson-{Path(path).stem}" if lesson else path
    module = Path(path).stem
    if module in ONE_WORKER_MODULES:
        return f"module-{module}"
    found = _STEM_PARAM.search(rest)
    if module in LESSON_RUN_MODULES and found:
        return f"lesson-{found.group(1)}"
    return None


@pytest.hookimpl(optionalhook=True)  # pytest -p no:xdist still runs
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` with the groups of :func:`xdist_group_of`.

    (pytest-xdist's own ``xdist_group`` marks go through ``item._nodeid``, which pytest 9.2
    no longer reads: the groups are computed here, from the node ids the workers send.)
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class CourseGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid) or super()._split_scope(nodeid)

    return CourseGroups(config, log)


@pytest.fixture(autouse=True)
def _restore_language():
    """A test that switches the package's language must not change it for the next test."""
    from qkv_helpers import lang

    before = lang.get_language()
    yield
    lang.set_language(before)


def pytest_collection_modifyitems(items):
    """Each test that reads a notebook's nbval outputs runs right after that notebook's
    last cell (on the same worker: :func:`xdist_group_of`)."""
    readers = {}
    for item in items:
        notebook = notebook_read_by(item.nodeid)
        if notebook:
            readers.setdefault(notebook, []).append(item)
    if not readers:
        return
    moved = {id(item) for group in readers.values() for item in group}
    ordered = [item for item in items if id(item) not in moved]
    for notebook, group in readers.items():
        cells = [i for i, item in enumerate(ordered) if item.nodeid.partition("::")[0] == notebook]
        at = cells[-1] + 1 if cells else len(ordered)
        ordered[at:at] = group
    items[:] = ordered


_NBVAL_OUTPUTS: dict[Path, dict[int, list]] = {}


class _KeepNbvalOutputs:
    """Keeps the outputs strict nbval's kernel gave each notebook cell (nbval's
    ``test_outputs``, whether or not they matched), by notebook and code cell number.

    A plugin of its own: this file's hooks reach only the items below tests/, and the
    notebooks are in notebooks/."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        try:
            return (yield)
        finally:
            outputs = getattr(item, "test_outputs", None)
            if outputs is not None and item.path.suffix == ".ipynb":
                _NBVAL_OUTPUTS.setdefault(item.path.resolve(), {})[item.cell_num] = outputs


def pytest_configure(config):
    config.pluginmanager.register(_KeepNbvalOutputs(), "course-keep-nbval-outputs")


@pytest.fixture
def nbval_outputs():
    """``{notebook path: {code cell number: outputs}}`` of the notebook cells strict nbval has
    run in this process so far (empty when no notebook was given to pytest)."""
    return _NBVAL_OUTPUTS
