"""Build the lessons' notebooks from notebooks/src and execute them in a clean kernel.

    python tools/build_notebooks.py                 # every lesson
    python tools/build_notebooks.py 01_qkv_concepts # some lessons
    python tools/build_notebooks.py --no-execute    # write without running

Each ``notebooks/src/NN_stem.py`` is a lesson's source (:mod:`nbsource` reads it). The
result is ``notebooks/ko/NN_stem.ipynb`` and ``notebooks/en/NN_stem.ipynb``, executed top to
bottom with their outputs and widget state saved, as ``make test`` (strict nbval) expects.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks" / "src"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import nbsource  # noqa: E402
from nbsource import INSTALL_CHECK, LANGS, Lesson  # noqa: E402

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def load(stem: str) -> Lesson:
    """The lesson ``notebooks/src/<stem>.py`` (:func:`nbsource.read`)."""
    return nbsource.read(SRC / f"{stem}.py")


def to_notebook(lesson: Lesson, lang: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = KERNELSPEC
    nb.metadata.language_info = {"name": "python"}
    for index, cell in enumerate(lesson.cells):
        text = cell.source[lang]
        if cell.kind == "markdown":
            new = nbformat.v4.new_markdown_cell(text)
        elif "solution" in cell.tags:  # shown on request only: Run All skips a raw cell
            new = nbformat.v4.new_raw_cell(text)
            new.metadata.tags = list(cell.tags)
            new.metadata.jupyter = {"source_hidden": True}
        else:
            new = nbformat.v4.new_code_cell(text)
            if cell.tags:
                new.metadata.tags = list(cell.tags)
            if cell.source_hidden:
                new.metadata.jupyter = {"source_hidden": True}
        if cell.slide:
            new.metadata.slideshow = {"slide_type": cell.slide}
        new.id = f"c{index:03d}"  # stable ids: the ko and en cells share them
        if cell.kind == "code" and not any(c.id == "install-check" for c in nb.cells):
            nb.cells.append(install_check(lang))
        nb.cells.append(new)
    return nb


def install_check(lang: str) -> nbformat.NotebookNode:
    """The cell before a lesson's first code: opened alone without the course installed, the
    notebook says how to install it (:data:`nbsource.INSTALL_CHECK`)."""
    cell = nbformat.v4.new_code_cell(INSTALL_CHECK[lang])
    cell.id = "install-check"  # the lesson's own cells keep their ids (c000, c001, ...)
    cell.metadata.slideshow = {"slide_type": "skip"}
    return cell


def execute(nb: nbformat.NotebookNode, where: Path) -> None:
    # Same settings as make test: one BLAS thread, inline plots (no MPLBACKEND).
    os.environ.pop("MPLBACKEND", None)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                            store_widget_state=True, resources={"metadata": {"path": str(where)}})
    client.execute()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stems", nargs="*", help="lessons to build (default: all)")
    parser.add_argument("--no-execute", action="store_true")
    args = parser.parse_args(argv)
    stems = args.stems or sorted(p.stem for p in SRC.glob("[0-9][0-9]_*.py"))
    for stem in stems:
        lesson = load(stem)
        for lang in LANGS:
            out = ROOT / "notebooks" / lang / f"{stem}.ipynb"
            nb = to_notebook(lesson, lang)
            if not args.no_execute:
                execute(nb, out.parent)
            nbformat.write(nb, out)
            print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
