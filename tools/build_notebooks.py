"""Build the lessons' notebooks from notebooks/src and execute them in a clean kernel.

    python tools/build_notebooks.py                 # every lesson (make notebooks)
    python tools/build_notebooks.py 05 01_qkv_concepts  # some (make notebooks LESSON=05)
    python tools/build_notebooks.py --no-execute    # write without running

Each ``notebooks/src/NN_stem.py`` is a lesson's source (:mod:`nbsource` reads it). The
result is ``notebooks/ko/NN_stem.ipynb`` and ``notebooks/en/NN_stem.ipynb``, executed top to
bottom with their outputs and widget state saved, as ``make test`` (strict nbval) expects.
A rebuild of an unchanged source writes the same files (:func:`stable`), except what the
cells tagged ``nbval-ignore-output`` print (timings).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import uuid
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks" / "src"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import nbsource  # noqa: E402
from nbsource import INSTALL_CHECK, LANGS, Lesson  # noqa: E402

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
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


def stable(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The executed notebook without what changes from run to run when its source did not,
    so a rebuild leaves git's copy as it was:

    - each widget model's id (a random uuid the kernel draws) becomes one derived from the
      notebook's name and the model's place in the saved state, which keeps the order the
      kernel created the models in (nbclient records each as the kernel opens it);
    - consecutive outputs of one stream (what a cell printed, split wherever the kernel
      happened to flush) become one output, as nbval and JupyterLab read them anyway.

    What a cell tagged ``nbval-ignore-output`` prints (a timing) still changes.
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = _joined_streams(cell.outputs)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    order = list(state)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view and view.get("model_id") not in order:
                order.append(view["model_id"])
    new = {old: widget_id(name, index) for index, old in enumerate(order)}
    if new:
        pattern = re.compile("|".join(re.escape(old) for old in new))
        nb = nbformat.from_dict(_renamed(nb, lambda text: pattern.sub(
            lambda m: new[m.group(0)], text)))
    return nb


def widget_id(name: str, index: int) -> str:
    """The id of the ``index``-th widget model of notebook ``name`` ("en/05_weighted_sum"): a
    uuid as the kernel's are, the same in every build, unlike any other notebook's."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"qkv-course/{name}/{index}").hex


def _joined_streams(outputs: list) -> list:
    joined = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (output.output_type == "stream" and last is not None
                and last.output_type == "stream" and last.name == output.name):
            last.text += output.text
        else:
            joined.append(output)
    return joined


def _renamed(value, rename):
    """``value`` (a notebook's JSON) with ``rename`` applied to every string and key."""
    if isinstance(value, dict):
        return {rename(key): _renamed(item, rename) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, rename) for item in value]
    return rename(value) if isinstance(value, str) else value


def lessons(names: list[str]) -> list[str]:
    """The lessons' stems named by number ("05") or stem ("05_weighted_sum"); all if none."""
    every = sorted(p.stem for p in SRC.glob("[0-9][0-9]_*.py"))
    stems = []
    for name in names or every:
        found = [stem for stem in every if stem == name or stem.startswith(f"{name}_")]
        if len(found) != 1:
            raise ValueError(f"no lesson {name!r} in notebooks/src (lessons: "
                             f"{', '.join(stem[:2] for stem in every)})")
        stems += found
    return stems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*",
                        help="lessons to build, by number (05) or name (default: all)")
    parser.add_argument("--no-execute", action="store_true")
    args = parser.parse_args(argv)
    try:
        stems = lessons(args.lessons)
    except ValueError as error:
        parser.error(str(error))
    for stem in stems:
        lesson = load(stem)
        for lang in LANGS:
            out = ROOT / "notebooks" / lang / f"{stem}.ipynb"
            nb = to_notebook(lesson, lang)
            if not args.no_execute:
                execute(nb, out.parent)
                nb = stable(nb, f"{lang}/{stem}")
            nbformat.write(nb, out)
            print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
