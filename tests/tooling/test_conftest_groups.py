"""The xdist groups of tests/conftest.py: what must run on one worker does."""

from __future__ import annotations

from types import SimpleNamespace

from conftest import notebook_read_by, pytest_collection_modifyitems, xdist_group_of


def test_the_tests_of_one_lesson_run_share_a_worker():
    lazy = "tests/classroom/test_checks_lazy.py::test_no_exercise_passes_with_what_is_already_there"
    contract = "tests/classroom/test_checks.py::test_every_exercise_check_keeps_the_contract"
    shipped = ("tests/classroom/test_checks_lazy.py::"
               "test_shipped_notebook_after_run_all_shows_no_answer")
    assert xdist_group_of(f"{lazy}[03_scaling-0]") == xdist_group_of(
        f"{contract}[03_scaling-1]") == xdist_group_of(f"{shipped}[03_scaling-ko-saved]") \
        == "lesson-03_scaling"
    assert xdist_group_of(f"{lazy}[04_softmax-0]") == "lesson-04_softmax"


def test_classroom_builds_share_a_worker_and_the_rest_goes_anywhere():
    builds = "tests/tooling/test_classroom.py::test_slides_index_links_every_deck"
    assert xdist_group_of(builds) == "module-test_classroom"
    assert xdist_group_of("tests/core/test_softmax.py::test_rows_sum_to_one") is None
    assert xdist_group_of("qkv_helpers/attention.py::qkv_helpers.attention.softmax") is None


def test_a_lessons_notebook_cells_share_the_lessons_worker_and_lessons_go_anywhere():
    cell = "notebooks/ko/03_scaling.ipynb::Cell {}"
    assert xdist_group_of(cell.format(0)) == xdist_group_of(cell.format(7)) \
        == xdist_group_of("notebooks/en/03_scaling.ipynb::Cell 0") == "lesson-03_scaling"
    assert xdist_group_of("notebooks/ko/04_softmax.ipynb::Cell 0") == "lesson-04_softmax"
    assert xdist_group_of("notebooks/ko/extra.ipynb::Cell 0") == "notebooks/ko/extra.ipynb"


def test_the_lazy_students_run_all_reads_its_notebooks_nbval_cells_on_their_worker():
    fresh = ("tests/classroom/test_checks_lazy.py::"
             "test_shipped_notebook_after_run_all_shows_no_answer"
             "[03_scaling-ko-fresh]")
    assert xdist_group_of(fresh) == xdist_group_of("notebooks/ko/03_scaling.ipynb::Cell 2") \
        == "lesson-03_scaling"
    assert notebook_read_by(fresh) == "notebooks/ko/03_scaling.ipynb"
    assert notebook_read_by(fresh.replace("-fresh]", "-saved]")) is None


def test_a_test_reading_nbval_outputs_runs_after_the_notebooks_last_cell():
    fresh = ("tests/classroom/test_checks_lazy.py::"
             "test_shipped_notebook_after_run_all_shows_no_answer"
             "[03_scaling-{}-fresh]")
    ids = [fresh.format("ko"), fresh.format("en"), "tests/core/test_softmax.py::test_a",
           "notebooks/ko/03_scaling.ipynb::Cell 0", "notebooks/ko/03_scaling.ipynb::Cell 1",
           "notebooks/ko/04_softmax.ipynb::Cell 0"]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in ids]
    pytest_collection_modifyitems(items)
    assert [item.nodeid for item in items] == [
        ids[2], ids[3], ids[4], ids[0], ids[5], ids[1]]  # no English cells: at the end
