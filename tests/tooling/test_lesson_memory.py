"""benchmarks/lesson_memory.py: the method of the teacher guides' memory and CPU table.

A notebook whose cells are known (one keeps 64 MiB, one computes for a while, one frees the
64 MiB) must come out as such: the RSS after the first cell 64 MiB higher, the CPU seconds in the
second cell, the peak at least the kept array, and --cells printing one row per code cell.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import lesson_memory  # noqa: E402

MIB = 2**20


@pytest.fixture(scope="module")
def notebook(tmp_path_factory) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# a lesson of three cells"),
        nbformat.v4.new_code_cell("import numpy as np\nkept = np.ones(64 * 2**20 // 8)"),
        nbformat.v4.new_code_cell(
            "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end:\n"
            "    pass"),
        nbformat.v4.new_code_cell("del kept"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    path = tmp_path_factory.mktemp("lesson") / "99_cells.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def measured(notebook):
    cells = []
    peak, end, cpu = lesson_memory.measure(notebook, cells=cells)
    return peak, end, cpu, cells


def test_one_row_per_code_cell_in_order(measured):
    *_, cells = measured
    assert [index for index, *_ in cells] == [1, 2, 3]
    assert cells[0][1] == "import numpy as np"


def test_the_kept_array_shows_in_the_rss_after_its_cell_and_in_the_peak(measured):
    peak, end, cpu, cells = measured
    (_, _, _, peak1, after1), (_, _, _, _, after2), (_, _, _, _, after3) = cells
    assert after1 >= 64 * MIB
    assert peak1 >= after1 and peak >= after1
    assert after2 - after1 < 16 * MIB  # the busy loop keeps nothing
    assert after1 - after3 > 48 * MIB  # freeing the array gives it back (numpy mmaps it)
    assert end == pytest.approx(after3, abs=8 * MIB)


def test_the_cpu_seconds_are_where_the_work_is(measured):
    _, _, cpu, cells = measured
    busy = cells[1][2]
    assert 0.45 <= busy <= cpu
    assert sum(c for _, _, c, _, _ in cells) <= cpu + 0.05


def test_cells_prints_a_table_per_lesson(notebook, monkeypatch, capsys):
    monkeypatch.setattr(lesson_memory, "ROOT", notebook.parent.parent)
    (notebook.parent.parent / "notebooks").mkdir(exist_ok=True)
    folder = notebook.parent.parent / "notebooks" / "en"
    folder.mkdir(exist_ok=True)
    (folder / notebook.name).write_bytes(notebook.read_bytes())
    assert lesson_memory.main([notebook.stem, "--lang", "en", "--cells"]) == 0
    out = capsys.readouterr().out
    assert f"| {notebook.stem} | " in out
    assert f"| {notebook.stem}: cell | CPU | peak RSS | RSS after | first line |" in out
    assert "| 3 | " in out and "`del kept`" in out


def test_without_cells_prints_the_table_only(notebook, monkeypatch, capsys):
    """The plain run (the guide's table) prints one row per lesson and no per-cell table
    (it once failed after the rows, reading the per-cell list it had not made)."""
    monkeypatch.setattr(lesson_memory, "ROOT", notebook.parent.parent)
    folder = notebook.parent.parent / "notebooks" / "en"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / notebook.name).write_bytes(notebook.read_bytes())
    assert lesson_memory.main([notebook.stem, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert f"| {notebook.stem} | " in out and ": cell |" not in out


def test_solutions_run_only_when_asked(tmp_path):
    """measure(..., solutions=True) runs the solution cells (raw, tagged "solution", as the
    lessons ship them), as the benchmarks' Run All does; without it they stay raw and
    skipped. A solution that keeps 64 MiB shows in the peak only when it ran."""
    nb = nbformat.v4.new_notebook()
    solution = nbformat.v4.new_raw_cell("import numpy as np\nkept = np.ones(64 * 2**20 // 8)")
    solution.metadata["tags"] = ["solution"]
    nb.cells = [nbformat.v4.new_code_cell("x = 1"), solution]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    path = tmp_path / "98_solution.ipynb"
    nbformat.write(nb, path)
    skipped, _, _ = lesson_memory.measure(path)
    ran, _, _ = lesson_memory.measure(path, solutions=True)
    assert ran - skipped > 48 * MIB
