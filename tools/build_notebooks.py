"""Build the lessons' notebooks from notebooks/src and execute them in a clean kernel.

    python tools/build_notebooks.py                 # every lesson (make notebooks)
    python tools/build_notebooks.py 05 01_qkv_concepts  # some (make notebooks LESSON=05)
    python tools/build_notebooks.py --fresh 13      # new timings too (make notebooks FRESH=1)
    python tools/build_notebooks.py --no-execute    # write without running

Each ``notebooks/src/NN_stem.py`` is a lesson's source (:mod:`nbsource` reads it). The
result is ``notebooks/ko/NN_stem.ipynb`` and ``notebooks/en/NN_stem.ipynb``, executed top to
bottom with their outputs and widget state saved, as ``make test`` (strict nbval) expects.

A rebuild of an unchanged source writes the same files, byte for byte: :func:`stable` makes
what the kernel draws at random (widget ids) the same in every build, and in a lesson that
measures, :func:`keep_measured` keeps the previous build's measurements (timings, plots of
measured memory) where the code that made them did not change. ``--fresh`` measures again.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
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
IGNORE = "nbval-ignore-output"  # the tag of a cell whose output varies (nbsource's ignore_output)
# A measuring notebook's metadata: {"measured_with": the fingerprint of qkv_helpers}
MEASURED = "qkv_course"
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
    # The kernel's Python version (3.11.7) would change the file from one contributor's
    # machine to the next; the rest of language_info is the same for every Python 3.
    nb.metadata.get("language_info", {}).pop("version", None)


def stable(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The executed notebook without what changes from run to run when its source did not,
    so a rebuild leaves git's copy as it was:

    - each widget model's id (a random uuid the kernel draws) becomes one derived from the
      notebook's name and the model's place in the saved state, which keeps the order the
      kernel created the models in (nbclient records each as the kernel opens it);
    - consecutive outputs of one stream (what a cell printed, split wherever the kernel
      happened to flush) become one output, as nbval and JupyterLab read them anyway.

    What a cell tagged ``nbval-ignore-output`` prints (a timing) is new in every run:
    :func:`keep_measured` keeps the previous one where the code did not change.
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


def keep_measured(nb: nbformat.NotebookNode, previous: nbformat.NotebookNode | None,
                  fingerprint: str) -> list[str]:
    """Keep ``previous``'s measurements in the freshly executed ``nb``; the ids of the cells
    whose outputs were kept.

    Only a lesson that measures, one with a cell tagged ``nbval-ignore-output`` (a timing),
    keeps anything; its metadata records what it was measured with: ``fingerprint``, that of
    the package the lesson runs (:func:`library_fingerprint`). When ``previous`` (the
    notebook as it was before this build) was measured with the same package, a code cell
    whose source, and the source of every code cell before it (the kernel's state it ran
    in), are unchanged was run on the same code, and:

    - if it is tagged ``nbval-ignore-output``, it keeps its previous outputs when the new ones
      have the same form (:func:`_form`: the same kinds of output and the same text, numbers
      aside), so a timing stays the one measured before; when they do not, the fresh
      measurement is kept and so are the fresh outputs of every cell after it (a fit, a plot
      of it), which computed from it;
    - otherwise it keeps its previous plots (``image/*``, which nbval does not compare) when
      everything else of its outputs is the same as now: a plot of measured memory stays the
      one drawn before; any change in a printed number takes the fresh outputs.

    A changed cell, every cell after it, and a changed package take the fresh outputs. What
    is kept is a real measurement, from an earlier build of the same code.
    """
    if not any(IGNORE in cell.metadata.get("tags", []) for cell in nb.cells):
        nb.metadata.pop(MEASURED, None)
        return []
    nb.metadata[MEASURED] = {"measured_with": fingerprint}
    if previous is None or previous.metadata.get(MEASURED, {}).get("measured_with") != fingerprint:
        return []
    kept = []
    old_cells = [cell for cell in previous.cells if cell.cell_type == "code"]
    new_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    for old, new in zip(old_cells, new_cells):
        if old.source != new.source:
            break  # this cell and every later one ran on something new
        if IGNORE in new.metadata.get("tags", []):
            same = _form(old.outputs) == _form(new.outputs)
        else:
            same = _without_images(old.outputs) == _without_images(new.outputs)
        if same and old.outputs != new.outputs:
            new.outputs = old.outputs
            kept.append(new.id)
        elif not same and IGNORE in new.metadata.get("tags", []):
            break  # a fresh measurement: the cells after it compute from it
    return kept


def library_fingerprint(package: Path = ROOT / "qkv_helpers") -> str:
    """A hash of the package the lessons run, its code and data (``*.py``, ``*.npz``; not
    its README, bytecode or an editor's files): any change to them, even a comment,
    measures again."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".npz") and path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:16]


NUMBER = re.compile(r"\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
SPACES = re.compile(r"[ \t]+")  # numpy pads an array's numbers to the widest
AROUND_NUMBER = re.compile(r"[ \t]*#[ \t]*")  # "[ 331.  350.]" and "[321. 346.]" alike


def _form(outputs: list) -> list:
    """What a timing's outputs are apart from the numbers measured: each output's kind,
    stream, mime types and its text with every number written # (and the spaces around
    numbers, which depend on their widths, written as one)."""
    form = []
    for output in outputs:
        data = output.get("data", {})
        texts = [output.get("text", "")] + [value for key, value in sorted(data.items())
                                            if isinstance(value, str)
                                            and not key.startswith("image/")]
        form.append((output.output_type, output.get("name"), sorted(data),
                     [SPACES.sub(" ", AROUND_NUMBER.sub(" # ", NUMBER.sub("#", text)))
                      for text in texts],
                     output.get("ename")))
    return form


def _without_images(outputs: list) -> list:
    plain = copy.deepcopy(outputs)
    for output in plain:
        for key in output.get("data", {}):
            if key.startswith("image/"):
                output.data[key] = None
    return plain


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


def build(lesson: Lesson, lang: str, out: Path, name: str, *, run: bool = True,
          fresh: bool = False) -> list[str]:
    """Write ``lesson``'s notebook in ``lang`` to ``out``, executed unless ``run`` is false,
    keeping the measurements of the notebook already at ``out`` unless ``fresh``
    (:func:`keep_measured`); the ids of the cells whose outputs were kept."""
    nb = to_notebook(lesson, lang)
    kept = []
    out.parent.mkdir(parents=True, exist_ok=True)  # the kernel's working folder, too
    if run:
        previous = nbformat.read(out, as_version=4) if out.exists() and not fresh else None
        execute(nb, out.parent)
        nb = stable(nb, name)
        kept = keep_measured(nb, previous, library_fingerprint())
    nbformat.write(nb, out)
    return kept


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*",
                        help="lessons to build, by number (05) or name (default: all)")
    parser.add_argument("--no-execute", action="store_true")
    parser.add_argument("--fresh", action="store_true",
                        help="measure again: new timings and measured plots, even where the "
                             "code that made them did not change (make notebooks FRESH=1)")
    parser.add_argument("--out", type=Path, default=ROOT / "notebooks", metavar="DIR",
                        help="write DIR/ko/ and DIR/en/ (default: notebooks/)")
    args = parser.parse_args(argv)
    try:
        stems = lessons(args.lessons)
    except ValueError as error:
        parser.error(str(error))
    for stem in stems:
        lesson = load(stem)
        for lang in LANGS:
            out = args.out.resolve() / lang / f"{stem}.ipynb"
            kept = build(lesson, lang, out, f"{lang}/{stem}", run=not args.no_execute,
                         fresh=args.fresh)
            note = f" (kept the measurements of cells {', '.join(kept)})" if kept else ""
            shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
            print(f"wrote {shown}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
