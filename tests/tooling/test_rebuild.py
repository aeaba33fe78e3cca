"""A rebuild of an unchanged lesson writes the same notebook (tools/build_notebooks.py): a
lesson that measures keeps its previous measurements, and only while the code that made them
is unchanged (``keep_measured``); ``--fresh`` measures again.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import build_notebooks  # noqa: E402
import nbsource  # noqa: E402

IGNORE = build_notebooks.IGNORE
PNG_1, PNG_2 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", "iVBORw0KGgoAAAANSUhEUgAAAAIAAAAC"


def stream(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def plot(png: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={"image/png": png,
                                                        "text/plain": "<Figure>"})


def notebook(cells: list[tuple], fingerprint: str | None = "f1") -> nbformat.NotebookNode:
    """A built notebook: cells (source, tags, outputs), measured with ``fingerprint``."""
    nb = nbformat.v4.new_notebook()
    for index, (source, tags, outputs) in enumerate(cells):
        cell = nbformat.v4.new_code_cell(source, outputs=outputs)
        cell.id = f"c{index:03d}"
        if tags:
            cell.metadata.tags = tags
        nb.cells.append(cell)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("# 99"))
    if fingerprint:
        nb.metadata[build_notebooks.MEASURED] = {"measured_with": fingerprint}
    return nb


def lesson(timing_ms: int, png: str = PNG_1, printed: str = "42\n", setup: str = "n = 4096",
           timing: str = "print(time_it(n))") -> nbformat.NotebookNode:
    """A lesson that measures: a setup cell, a timing, a checked cell with a plot."""
    return notebook([(setup, [], []),
                     (timing, [IGNORE], [stream(f"{timing_ms} ms\n")]),
                     ("print(6 * 7); plot()", [], [stream(printed), plot(png)])])


def outputs(nb: nbformat.NotebookNode) -> list:
    return [cell.outputs for cell in nb.cells if cell.cell_type == "code"]


def test_an_unchanged_lesson_keeps_its_timing_and_its_measured_plot():
    before, now = lesson(149), lesson(114, png=PNG_2)
    assert build_notebooks.keep_measured(now, before, "f1") == ["c001", "c002"]
    assert outputs(now) == outputs(lesson(149))
    assert now.metadata[build_notebooks.MEASURED] == {"measured_with": "f1"}


def test_a_changed_timing_cell_measures_again():
    now = lesson(114, png=PNG_2, timing="print(time_it(n, repeats=3))")
    assert build_notebooks.keep_measured(now, lesson(149), "f1") == []
    assert outputs(now)[1][0].text == "114 ms\n" and outputs(now)[2][1].data["image/png"] == PNG_2


def test_a_change_before_a_timing_measures_again():
    """The cell is the same, but it runs on another state: n = 2048."""
    now = lesson(114, png=PNG_2, setup="n = 2048")
    assert build_notebooks.keep_measured(now, lesson(149), "f1") == []
    assert outputs(now)[1][0].text == "114 ms\n"


def test_a_changed_package_measures_again():
    now = lesson(114, png=PNG_2)
    assert build_notebooks.keep_measured(now, lesson(149), "f2") == []
    assert outputs(now) == outputs(lesson(114, png=PNG_2))
    assert now.metadata[build_notebooks.MEASURED] == {"measured_with": "f2"}
    never_measured = notebook([(c.source, c.metadata.get("tags"), c.outputs)
                               for c in lesson(149).cells[1:]], fingerprint=None)
    assert build_notebooks.keep_measured(lesson(114), never_measured, "f1") == []
    assert build_notebooks.keep_measured(lesson(114), None, "f1") == []


def test_a_checked_number_that_changed_takes_the_fresh_plot_too():
    now = lesson(114, png=PNG_2, printed="43\n")
    assert build_notebooks.keep_measured(now, lesson(149), "f1") == ["c001"]
    assert outputs(now)[2] == [stream("43\n"), plot(PNG_2)]
    assert outputs(now)[1] == [stream("149 ms\n")]


@pytest.mark.parametrize("fresh", [
    [stream("114 ms, 3 runs\n")],                                   # other words
    [stream("114 ms\n"), stream("done\n")],                         # another output
    [nbformat.v4.new_output("stream", name="stderr", text="114 ms\n")],
    [nbformat.v4.new_output("error", ename="ValueError", evalue="n", traceback=[])],
])
def test_a_timing_that_reads_otherwise_is_fresh(fresh):
    now = lesson(114)
    now.cells[2].outputs = fresh
    assert build_notebooks.keep_measured(now, lesson(149), "f1") == []
    assert now.cells[2].outputs == fresh


def test_a_fresh_timing_takes_the_fresh_outputs_after_it():
    """A timing that reads otherwise is measured again, and the cells after it computed from
    the new measurement: they must not show the old one's fit (lesson 09, a review)."""
    before = notebook([("m = time_it()", [IGNORE], [stream("149 ms\n")]),
                       ("print(fit(m))", [IGNORE], [stream("fit 12 ms\n")])])
    now = notebook([("m = time_it()", [IGNORE], [stream("114 ms, slow\n")]),
                    ("print(fit(m))", [IGNORE], [stream("fit 9 ms\n")])])
    assert build_notebooks.keep_measured(now, before, "f1") == []
    assert outputs(now) == [[stream("114 ms, slow\n")], [stream("fit 9 ms\n")]]


def test_timings_keep_their_numbers_form():
    form = build_notebooks._form
    assert form([stream("n = 4096: 149 ms, 1.5e-05 s\n")]) == form([stream("n = 4096: 88 ms, "
                                                                           "0.25 s\n")])
    assert form([stream("[  498.   744. 10770.]\n")]) == form([stream("[ 502. 687. 1303.]\n")])
    assert form([stream("[ 331.  350.  361.]\n")]) == form([stream("[321. 346. 354.]\n")])
    assert form([stream("149 ms\n")]) != form([stream("149 µs\n")])
    assert form([stream("1 2\n")]) != form([stream("1\n2\n")])


def test_a_lesson_that_measures_nothing_keeps_nothing():
    """No timing cell: every output is fresh and the notebook records no package."""
    untagged = [("print(6 * 7); plot()", [], [stream("42\n"), plot(PNG_1)])]
    now = notebook([(s, t, [stream("42\n"), plot(PNG_2)]) for s, t, _ in untagged],
                   fingerprint=None)
    assert build_notebooks.keep_measured(now, notebook(untagged), "f1") == []
    assert outputs(now)[0][1].data["image/png"] == PNG_2
    assert build_notebooks.MEASURED not in now.metadata


def test_the_fingerprint_follows_the_package_code(tmp_path):
    package = tmp_path / "qkv_helpers"
    (package / "data").mkdir(parents=True)
    (package / "fast.py").write_bytes(b"def f():\n    return 1\n")
    (package / "data" / "w.npz").write_bytes(b"\x00\x01")
    first = build_notebooks.library_fingerprint(package)
    (package / "README.md").write_text("the map\n")
    (package / ".fast.py.swp").write_bytes(b"\x00")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "fast.cpython-311.pyc").write_bytes(b"\x00")
    (package / "fast.py").write_bytes(b"def f():\r\n    return 1\r\n")  # a Windows checkout
    assert build_notebooks.library_fingerprint(package) == first
    for path, changed in [("fast.py", b"def f():\n    return 2\n"),
                          ("fast.py", b"def f():\n    return 1  # faster\n"),
                          ("data/w.npz", b"\x00\x02")]:
        before = (package / path).read_bytes()
        (package / path).write_bytes(changed)
        assert build_notebooks.library_fingerprint(package) != first, (path, changed)
        (package / path).write_bytes(before)
    assert build_notebooks.library_fingerprint(package) == first
    assert build_notebooks.library_fingerprint() != first  # the real package


# --- a real build, in a kernel -------------------------------------------------------------

TINY = """
# %% [markdown] lang="ko"
# # 99. 잰 시간

# %% [markdown] lang="en"
# # 99. A timing

# %%
import time

import matplotlib.pyplot as plt

# %% ignore_output=true
print(f"{time.time_ns()} ns")

# %%
print(6 * 7)
plt.figure(figsize=(1, 1))
plt.title(str(time.time_ns()), fontsize=4)  # a plot of what this run measured
plt.show()
"""


def built(tmp_path: Path, source: str = TINY, fresh: bool = False) -> tuple[str, list[str]]:
    out = tmp_path / "en" / "99_tiny.ipynb"
    kept = build_notebooks.build(nbsource.parse(source), "en", out, "en/99_tiny", fresh=fresh)
    return out.read_text(encoding="utf-8"), kept


def timing(text: str) -> str:
    nb = nbformat.reads(text, as_version=4)
    return next(c for c in nb.cells if IGNORE in c.metadata.get("tags", [])).outputs[0].text


def test_a_lesson_built_twice_is_the_same_file(tmp_path):
    first, kept = built(tmp_path)
    assert kept == [] and timing(first).endswith(" ns\n")
    assert "version" not in nbformat.reads(first, as_version=4).metadata.language_info
    second, kept = built(tmp_path)
    assert kept == ["c002", "c003"]  # the timing, and the plot of what it measured
    assert second == first
    fresh, kept = built(tmp_path, fresh=True)
    assert kept == [] and timing(fresh) != timing(first)
    changed, kept = built(tmp_path, TINY.replace('} ns")', '} ns.")'))
    assert kept == [] and timing(changed).endswith(" ns.\n")
