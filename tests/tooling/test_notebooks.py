"""The notebooks themselves: ko and en aligned, built from their sources, executed, complete.

(nbval, run by ``make test``, re-executes them and compares the outputs.)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "tools"))

import build_notebooks  # noqa: E402

STEMS = sorted(p.stem for p in (NOTEBOOKS / "src").glob("[0-9][0-9]_*.py"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def load(lang: str, stem: str) -> dict:
    return json.loads((NOTEBOOKS / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))


def text(value) -> str:
    """A notebook's multi-line string: saved as one string or as a list of lines."""
    return value if isinstance(value, str) else "".join(value)


def source(cell: dict) -> str:
    return text(cell["source"])


def plain_outputs(cell: dict) -> str:
    return "".join(text(o["data"].get("text/plain", "")) for o in cell["outputs"] if "data" in o)


def test_there_are_lessons():
    assert "00_start_here" in STEMS


def test_same_lessons_in_both_languages():
    ko = {p.stem for p in (NOTEBOOKS / "ko").glob("*.ipynb")}
    en = {p.stem for p in (NOTEBOOKS / "en").glob("*.ipynb")}
    assert ko == en == set(STEMS)


@pytest.mark.parametrize("stem", STEMS)
def test_ko_and_en_are_aligned_cell_for_cell(stem):
    ko, en = load("ko", stem)["cells"], load("en", stem)["cells"]
    assert [c["cell_type"] for c in ko] == [c["cell_type"] for c in en]
    for a, b in zip(ko, en):
        assert a["id"] == b["id"]
        assert a["metadata"].get("tags", []) == b["metadata"].get("tags", []), a["id"]
        assert a["metadata"].get("slideshow") == b["metadata"].get("slideshow"), a["id"]
        if a["cell_type"] == "markdown":
            assert source(a) != source(b), f"{stem} cell {a['id']}: prose not written in ko/en"
    # The code is written once (tests/test_nbsource.py checks the cells written per language)


def code_cells(stem: str):
    """The code a learner reads: code cells and the solutions (raw cells until opened)."""
    for lang in ("ko", "en"):
        for cell in load(lang, stem)["cells"]:
            if cell["cell_type"] == "code" or "solution" in cell["metadata"].get("tags", []):
                yield lang, cell


@pytest.mark.parametrize("stem", STEMS)
def test_code_cells_print_their_own_words(stem):
    """What a cell prints or labels is written in the cell, not fetched by a translation
    key: no ``qk.t(...)`` in a lesson's code (the package's own texts stay in lang.py)."""
    found = [(lang, cell["id"]) for lang, cell in code_cells(stem)
             if re.search(r"\bqk\.t\(|\bqkv_helpers\.t\(|\bfrom qkv_helpers import .*\bt\b",
                          source(cell))]
    assert not found, f"{stem}: qk.t(...) in code cells {found}"


MAX_LINE = 100


@pytest.mark.parametrize("stem", STEMS)
def test_code_lines_fit(stem):
    """No line of a lesson's code is longer than 100 characters."""
    long = [(lang, cell["id"], len(line)) for lang, cell in code_cells(stem)
            for line in source(cell).splitlines() if len(line) > MAX_LINE]
    assert not long, f"{stem}: code lines over {MAX_LINE} characters: {long}"


ALIASES = re.compile(r"^\s*(?:from\s+\S+\s+)?import\s+.*\bas\s+(\w+)", re.M)
ALLOWED_ALIASES = {"qk", "np", "plt"}  # the conventions every numpy course uses


@pytest.mark.parametrize("stem", STEMS)
def test_no_alias_a_learner_has_to_decode(stem):
    found = {(lang, name) for lang, cell in code_cells(stem)
             for name in ALIASES.findall(source(cell)) if name not in ALLOWED_ALIASES}
    assert not found, f"{stem}: module aliases {sorted(found)}; import the module by its name"


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_notebook_is_built_from_its_source(stem, lang):
    """The committed notebook has the cells its source gives (rebuild: make notebooks)."""
    built = build_notebooks.to_notebook(build_notebooks.load(stem), lang)
    committed = load(lang, stem)
    assert [source(c) for c in committed["cells"]] == [c.source for c in built.cells], (
        f"notebooks/{lang}/{stem}.ipynb is out of date with notebooks/src/{stem}.py: "
        "run make notebooks"
    )
    assert [c["metadata"] for c in committed["cells"]] == [dict(c.metadata) for c in built.cells]


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_notebook_is_executed_without_errors(stem, lang):
    cells = [c for c in load(lang, stem)["cells"] if c["cell_type"] == "code"]
    counts = [c["execution_count"] for c in cells]
    assert None not in counts, "every code cell is executed before commit"
    assert counts == list(range(1, len(cells) + 1)), "executed top to bottom in a clean kernel"
    for cell in cells:
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"{stem} cell {cell['id']} has an error"
            assert "Glyph" not in text(out.get("text", "")), "missing-glyph warning"


@pytest.mark.parametrize("stem", STEMS)
def test_lesson_has_goals_widget_exercise_solution_and_next_step(stem):
    for lang in ("ko", "en"):
        cells = load(lang, stem)["cells"]
        first = source(cells[0])
        assert first.startswith("# "), "a lesson starts with its title"
        outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
        assert any(WIDGET_MIME in o.get("data", {}) for o in outputs), "at least one widget"
        exercises = [c for c in cells if "exercise" in c["metadata"].get("tags", [])]
        solutions = [c for c in cells if "solution" in c["metadata"].get("tags", [])]
        assert exercises and solutions, "at least one exercise and its solution"
        for cell in exercises:
            assert "..." in source(cell), "an exercise ships unanswered"
            shown = plain_outputs(cell)
            assert shown.startswith("✏️"), "the check says 'not answered yet', without raising"
        for cell in solutions:  # shown on request: run by tests/classroom/test_checks_lazy.py
            assert cell["cell_type"] == "raw", f"{stem} {lang}: Run All must skip a solution"
            assert cell["metadata"]["jupyter"]["source_hidden"] is True
            assert "outputs" not in cell, f"{stem} {lang}: a solution's result is not saved"
    last = source(load("en", stem)["cells"][-1])
    assert "takeaways" in last.lower() and ".ipynb" in last, "takeaways and a link at the end"


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_links_to_lessons_resolve(stem, lang):
    for cell in load(lang, stem)["cells"]:
        if cell["cell_type"] == "markdown":
            for target in re.findall(r"\]\(([^)#]+\.ipynb)", source(cell)):
                assert (NOTEBOOKS / lang / target).exists(), f"{stem}: broken link {target}"


@pytest.mark.parametrize("stem", STEMS)
def test_korean_prose_is_korean(stem):
    prose = "".join(source(c) for c in load("ko", stem)["cells"] if c["cell_type"] == "markdown")
    hangul = sum("가" <= ch <= "힣" for ch in prose)
    letters = sum(ch.isalpha() for ch in prose)
    assert hangul > 0.4 * letters, "the Korean notebook is written in Korean"
