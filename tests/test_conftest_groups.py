"""The xdist groups of tests/conftest.py: what must run on one worker does."""

from __future__ import annotations

from conftest import xdist_group_of


def test_the_tests_of_one_lesson_run_share_a_worker():
    lazy = "tests/test_checks_lazy.py::test_no_exercise_passes_with_what_is_already_there"
    contract = "tests/test_checks.py::test_every_exercise_check_keeps_the_contract"
    shipped = "tests/test_checks_lazy.py::test_shipped_notebook_after_run_all_shows_no_answer"
    assert xdist_group_of(f"{lazy}[03_scaling-0]") == xdist_group_of(
        f"{contract}[03_scaling-1]") == xdist_group_of(f"{shipped}[03_scaling-ko-saved]") \
        == "lesson-03_scaling"
    assert xdist_group_of(f"{lazy}[04_softmax-0]") == "lesson-04_softmax"


def test_classroom_builds_share_a_worker_and_the_rest_goes_anywhere():
    assert xdist_group_of("tests/test_classroom.py::test_slides_index_links_every_deck") == \
        "module-test_classroom"
    assert xdist_group_of("tests/test_softmax.py::test_rows_sum_to_one") is None
    assert xdist_group_of("qkv_helpers/attention.py::qkv_helpers.attention.softmax") is None


def test_a_notebooks_cells_share_a_worker_and_notebooks_go_anywhere():
    cell = "notebooks/ko/03_scaling.ipynb::Cell {}"
    assert xdist_group_of(cell.format(0)) == xdist_group_of(cell.format(7)) \
        == "notebooks/ko/03_scaling.ipynb"
    assert xdist_group_of("notebooks/en/03_scaling.ipynb::Cell 0") != xdist_group_of(
        cell.format(0))
