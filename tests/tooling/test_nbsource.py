"""The lessons' source format (tools/nbsource.py) and the builder's stable rebuild
(tools/build_notebooks.py): cells, per-language comments, every cell option, the errors a
contributor sees, widget ids that do not change from build to build.
"""

from __future__ import annotations

import copy
import io
import re
import sys
import textwrap
import tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import build_notebooks  # noqa: E402
import nbsource  # noqa: E402
from nbsource import INSTALL_CHECK, SOLUTION_HEADER, SourceError, in_language, parse  # noqa: E402

STEMS = sorted(p.stem for p in build_notebooks.SRC.glob("[0-9][0-9]_*.py"))


def source(*lines: str) -> str:
    return "\n".join(lines) + "\n"


LESSON = source(
    "# Lesson 99's source: comments before the first cell are the file's, not the lesson's.",
    "",
    '# %% [markdown] lang="ko" slide="slide"',
    "# # 99. 제목",
    "#",
    r"# $\sqrt{d_k}$로 나눠요.",
    "",
    '# %% [markdown] lang="en"',
    "# # 99. Title",
    "#",
    r"# Divide by $\sqrt{d_k}$.",
    "",
    '# %% slide="skip"',
    "import qkv_helpers as qk",
    "",
    "qk.setup(lang=LANG)",
    "x = 1          # ko: 하나",
    "               # en: one",
    "",
    "",
    "# %% exercise=true",
    "my_x = ...",
    "",
    "# %% solution=true",
    "my_x = x",
    "",
    "# %% ignore_output=true",
    "print(x)",
    "",
    '# %% lang="ko"',
    'print("하나")',
    "",
    '# %% lang="en"',
    'print("one")',
)


def test_cells_prose_per_language_code_once():
    cells = parse(LESSON).cells
    assert [c.kind for c in cells] == ["markdown", "code", "code", "code", "code", "code"]
    title = cells[0]
    assert title.source == {"ko": "# 99. 제목\n\n$\\sqrt{d_k}$로 나눠요.",
                            "en": "# 99. Title\n\nDivide by $\\sqrt{d_k}$."}
    assert title.slide == "slide" and title.tags == []
    # the blank lines between cells are not theirs; lang=LANG is the notebook's language
    assert cells[1].source == {
        "ko": 'import qkv_helpers as qk\n\nqk.setup(lang="ko")\nx = 1          # 하나',
        "en": 'import qkv_helpers as qk\n\nqk.setup(lang="en")\nx = 1          # one'}
    assert cells[1].slide == "skip"
    assert cells[5].source == {"ko": 'print("하나")', "en": 'print("one")'}


def test_every_cell_option():
    cells = parse(LESSON).cells
    exercise, solution, timing = cells[2], cells[3], cells[4]
    assert exercise.tags == ["exercise"] and not exercise.source_hidden
    assert exercise.source["ko"] == exercise.source["en"] == "my_x = ..."
    assert solution.tags == ["solution"] and solution.source_hidden
    for lang in ("ko", "en"):
        assert solution.source[lang] == f"{SOLUTION_HEADER[lang]}\nmy_x = x"
    assert timing.tags == ["nbval-ignore-output"]
    assert [c.slide for c in cells] == ["slide", "skip", None, None, None, None]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_notebook_a_source_gives(lang):
    """The solution a collapsed raw cell, the install check before the first code cell,
    ids shared by both languages."""
    nb = build_notebooks.to_notebook(parse(LESSON), lang)
    assert [c.id for c in nb.cells] == ["c000", "install-check", "c001", "c002", "c003",
                                        "c004", "c005"]
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "code", "code", "raw",
                                               "code", "code"]
    check = nb.cells[1]
    assert check.source == INSTALL_CHECK[lang]
    assert check.metadata == {"slideshow": {"slide_type": "skip"}}
    assert nb.cells[0].metadata == {"slideshow": {"slide_type": "slide"}}
    assert nb.cells[3].metadata == {"tags": ["exercise"]}
    assert nb.cells[4].metadata == {"tags": ["solution"], "jupyter": {"source_hidden": True}}
    assert nb.cells[5].metadata == {"tags": ["nbval-ignore-output"]}
    assert nb.cells[6].metadata == {}


def test_the_formats_example_is_a_lesson():
    """tools/nbsource.py's docstring shows the format: its example reads as it says."""
    example = textwrap.dedent(nbsource.__doc__.split("::\n\n", 1)[1].split("\n**Cells.**")[0])
    cells = parse(example).cells
    assert [(c.kind, c.tags, c.slide) for c in cells] == [
        ("markdown", [], "slide"), ("code", [], "skip"), ("code", ["exercise"], None),
        ("code", ["solution"], None)]
    assert cells[1].source["en"].splitlines()[2:] == [
        'qk.setup(lang="en")             # a comment both notebooks show',
        "x = qk.running_example().x      # the embeddings, (tokens, d_model)",
        "# A line of the English notebook only."]
    assert cells[1].source["ko"].splitlines()[3:] == [
        "x = qk.running_example().x      # 임베딩, (토큰, d_model)",
        "# 한국어 노트북에만 있는 줄이에요."]


# --- comments per language -------------------------------------------------------------------

def both(code: str) -> tuple[str, str]:
    return in_language(code, "ko"), in_language(code, "en")


def test_a_trailing_comment_and_its_english_twin_under_it():
    code = source("w = f(x)   # ko: 가중치", "           # en: the weights", "print(w)").rstrip()
    assert both(code) == ("w = f(x)   # 가중치\nprint(w)", "w = f(x)   # the weights\nprint(w)")


def test_the_english_comment_keeps_its_own_column():
    code = "w = f(x)   # ko: 가중치\n                  # en: the weights"
    assert in_language(code, "en") == "w = f(x)          # the weights"


def test_comment_lines_of_one_language():
    code = source("# ko: 한국어 설명이에요.", "# ko: 두 줄이에요.", "# en: The English one.",
                  "if x:", "    # en: only in English", "    y = 1").rstrip()
    assert both(code) == ("# 한국어 설명이에요.\n# 두 줄이에요.\nif x:\n    y = 1",
                          "# The English one.\nif x:\n    # only in English\n    y = 1")


def test_an_english_line_of_its_own_after_a_korean_trailing_comment():
    """Starting at the code's indentation, it is a line of its own: the English notebook moves
    a long comment above the next line."""
    code = source("a = 1   # ko: 첫째", "# en: the second, on its own line",
                  "b = 2   # ko: 둘째").rstrip()
    assert both(code) == ("a = 1   # 첫째\nb = 2   # 둘째",
                          "a = 1\n# the second, on its own line\nb = 2")


def test_a_comment_in_one_language_only_and_shared_comments():
    code = "a = 1   # en: English only\nb = 2   # shared\nc = 3   # ko: 한국어만"
    assert both(code) == ("a = 1\nb = 2   # shared\nc = 3   # 한국어만",
                          "a = 1   # English only\nb = 2   # shared\nc = 3")


def test_a_continued_comment_in_both_languages():
    code = source("x = f()   # ko: 가", "          # en: a", "          # ko: 나",
                  "          # en: b").rstrip()
    assert both(code) == ("x = f()   # 가\n          # 나", "x = f()   # a\n          # b")


def test_only_comments_are_read_not_strings():
    code = 'print("# ko: not a comment")  # en: a comment'
    assert both(code) == ('print("# ko: not a comment")',
                          'print("# ko: not a comment")  # a comment')
    assert both("x = 1  # ko:no space, not a tag") == ("x = 1  # ko:no space, not a tag",) * 2
    assert both("x = 1  #ko: 붙여 씀") == ("x = 1  #붙여 씀", "x = 1")


def test_a_cell_that_is_not_python_is_reported():
    with pytest.raises(SourceError, match="cannot read the cell's code"):
        in_language('x = """never closed', "ko")


# --- what a contributor is told --------------------------------------------------------------

@pytest.mark.parametrize("text,message", [
    ("# %% [markdown]\n# prose\n", "a markdown cell needs lang"),
    ('# %% lang="ko"\nx = 1\n', "followed by its lang=\"en\" cell"),
    ('# %% lang="en"\nx = 1\n', "followed by its lang=\"en\" cell"),
    ('# %% [markdown] lang="ko"\n# a\n\n# %% lang="en"\nx = 1\n', "of the same kind"),
    ('# %% lang="ko"\nx = 1\n\n# %% lang="en" exercise=true\nx = 2\n', "lang=\"ko\" cell only"),
    ("# %% exercise=yes\nx = 1\n", "key=value"),
    ("# %% solutions=true\nx = 1\n", "unknown cell option solutions"),
    ('# %% slide=true\nx = 1\n', "unknown cell option slide"),
    ('# %% lang="fr"\nx = 1\n', "lang is one of"),
    ('# %% [markdown] lang="ko" exercise=true\n# a\n\n# %% [markdown] lang="en"\n# b\n',
     "takes only lang and slide"),
    ('# %% [markdown] lang="ko"\nno hash\n\n# %% [markdown] lang="en"\n# b\n', "starts with '# '"),
    ("x = 1\n# %%\ny = 2\n", "code before the first"),
    ("# %%\n\n# %%\ny = 2\n", "an empty cell"),
])
def test_errors_name_the_line(text, message):
    with pytest.raises(SourceError, match=message) as error:
        parse(text, name="99_x.py")
    assert str(error.value).startswith("99_x.py:")


# --- the lessons as written ------------------------------------------------------------------

def code_tokens(text: str, strings: bool = True) -> list[tuple[int, str]]:
    """The code's tokens without comments; with ``strings=False`` every string literal (what
    a cell prints or labels) is ``"?"``, and an f-string's {expressions} are kept."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in skip:
            continue
        if token.type == tokenize.STRING and not strings:
            found.extend(_f_string_code(token.string))
        else:
            found.append((token.type, token.string))
    return found


def _f_string_code(literal: str) -> list[tuple[int, str]]:
    prefix = re.match(r"[A-Za-z]*", literal).group(0).lower()
    found = [(tokenize.STRING, "?")]
    if "f" in prefix:
        body = literal[len(prefix):].strip("\"'").replace("{{", "").replace("}}", "")
        for field in re.findall(r"\{([^{}]*)\}", body):
            expression = re.split(r"(?<![=!<>])[:!](?![=])", field)[0]
            found += code_tokens(expression.strip(), strings=False)
    return found


def test_code_tokens_see_real_code_differences():
    assert code_tokens("x = 1  # 하나") == code_tokens("x = 1  # one")
    assert code_tokens('print("점수")') != code_tokens('print("score")')
    assert code_tokens('print("점수")', False) == code_tokens('print("score")', False)
    assert code_tokens("x = 1", False) != code_tokens("x = 2", False)
    assert code_tokens('print(f"점수 {s:.2f}")', False) == code_tokens(
        'print(f"score {s:.2f}")', False)
    assert code_tokens('print(f"점수 {s:.2f}")', False) != code_tokens(
        'print(f"score {t:.2f}")', False)
    assert code_tokens('print("a", "b")', False) != code_tokens('print("a")', False)


def pairs(stem: str):
    """The lesson's code cells written once per language: (line, ko code, en code)."""
    blocks = nbsource._blocks((build_notebooks.SRC / f"{stem}.py").read_text("utf-8"), stem)
    for ko, en in zip(blocks, blocks[1:]):
        if not ko.markdown and ko.options.get("lang") == "ko":
            yield ko.line, "\n".join(ko.body), "\n".join(en.body)


@pytest.mark.parametrize("stem", STEMS)
def test_a_code_cell_is_written_twice_only_for_its_strings(stem):
    """A lang="ko"/"en" pair of code cells is for what a cell prints or labels, in the lesson's
    language: its code is otherwise the same, and a pair that differs only in comments is
    written once, with # ko:/# en: comments."""
    for line, ko, en in pairs(stem):
        assert code_tokens(ko) != code_tokens(en), (
            f"{stem}:{line}: the two cells differ only in comments: write it once")
        assert code_tokens(ko, False) == code_tokens(en, False), (
            f"{stem}:{line}: the ko and en code differ beyond strings and comments")


def test_the_lessons_write_code_once():
    cells = [c for stem in STEMS for c in build_notebooks.load(stem).cells if c.kind == "code"]
    commented = sum("# ko:" in (build_notebooks.SRC / f"{stem}.py").read_text("utf-8")
                    for stem in STEMS)
    assert len(cells) > 200 and commented == len(STEMS)


def test_the_korean_install_check_says_gang():
    """The glossary's word for a lesson is 강 (qkv_helpers/lang.py), never 레슨."""
    assert "11강" in INSTALL_CHECK["ko"] and "레슨" not in INSTALL_CHECK["ko"]


def test_lessons_are_named_by_number_or_stem():
    assert build_notebooks.lessons(["05"]) == ["05_weighted_sum"]
    assert build_notebooks.lessons(["05_weighted_sum", "00"]) == ["05_weighted_sum",
                                                                   "00_start_here"]
    assert build_notebooks.lessons([]) == STEMS
    for wrong in ("99", "0", "weighted_sum"):
        with pytest.raises(ValueError, match="no lesson"):
            build_notebooks.lessons([wrong])


# --- a rebuild that changes nothing -----------------------------------------------------------

def executed(ids: list[str]) -> nbformat.NotebookNode:
    """A notebook as nbclient leaves it: a box holding a slider (with its layout), models in
    the order the kernel made them, under the random ids it drew; a cell printing in two
    pieces."""
    box, slider, layout = ids
    nb = nbformat.v4.new_notebook()
    view = {"model_id": box, "version_major": 2, "version_minor": 0}
    widget_cell = nbformat.v4.new_code_cell("w", outputs=[nbformat.v4.new_output(
        "display_data", data={build_notebooks.WIDGET_VIEW: view, "text/plain": "VBox()"})])
    printing = nbformat.v4.new_code_cell("p", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warn\n"),
        nbformat.v4.new_output("stream", name="stdout", text="c\n")])
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), widget_cell, printing]
    for index, cell in enumerate(nb.cells):
        cell.id = f"c{index:03d}"
    nb.metadata.widgets = {build_notebooks.WIDGET_STATE: {"state": {
        layout: {"model_name": "LayoutModel", "state": {"width": "50%"}},
        slider: {"model_name": "IntSliderModel",
                 "state": {"layout": f"IPY_MODEL_{layout}", "value": 3}},
        box: {"model_name": "VBoxModel", "state": {"children": [f"IPY_MODEL_{slider}"]}},
    }, "version_major": 2, "version_minor": 0}}
    return nb


RUN_1 = ["9f0c3e2a1b4d4c8e9a7b6c5d4e3f2a1b", "0123456789abcdef0123456789abcdef",
         "fedcba9876543210fedcba9876543210"]
RUN_2 = ["11111111111111111111111111111111", "22222222222222222222222222222222",
         "33333333333333333333333333333333"]


def test_two_runs_give_the_same_notebook():
    one = build_notebooks.stable(executed(RUN_1), "en/99_x")
    two = build_notebooks.stable(executed(RUN_2), "en/99_x")
    assert nbformat.writes(one) == nbformat.writes(two)
    assert not any(old in nbformat.writes(one) for old in RUN_1)


def test_stable_ids_keep_every_reference():
    nb = build_notebooks.stable(executed(RUN_1), "en/99_x")
    state = nb.metadata.widgets[build_notebooks.WIDGET_STATE]["state"]
    layout, slider, box = state  # in the order the kernel made them
    assert len({layout, slider, box}) == 3 and all(len(i) == 32 for i in state)
    assert state[slider]["state"] == {"layout": f"IPY_MODEL_{layout}", "value": 3}
    assert state[box]["state"]["children"] == [f"IPY_MODEL_{slider}"]
    assert nb.cells[1].outputs[0].data[build_notebooks.WIDGET_VIEW]["model_id"] == box
    other = build_notebooks.stable(executed(RUN_1), "ko/99_x")
    assert set(other.metadata.widgets[build_notebooks.WIDGET_STATE]["state"]).isdisjoint(state)


def test_a_printed_stream_is_one_output():
    nb = build_notebooks.stable(executed(RUN_1), "en/99_x")
    assert [(o.name, o.text) for o in nb.cells[2].outputs] == [
        ("stdout", "a\nb\n"), ("stderr", "warn\n"), ("stdout", "c\n")]


def test_stable_leaves_a_notebook_without_widgets_alone():
    nb = executed(RUN_1)
    del nb.metadata["widgets"]
    nb.cells = nb.cells[::2]
    before = copy.deepcopy(nb)
    after = build_notebooks.stable(nb, "en/99_x")
    assert after.cells[0] == before.cells[0]
    assert after.cells[1].outputs[0].text == "a\nb\n"


@pytest.mark.parametrize("stem", ["05_weighted_sum", "10_review"])
def test_committed_widget_ids_are_the_stable_ones(stem):
    """The committed notebooks were built with stable ids: rebuilding them gives the same."""
    for lang in ("ko", "en"):
        nb = nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", as_version=4)
        ids = set(nb.metadata.widgets[build_notebooks.WIDGET_STATE]["state"])
        ids |= {o.data[build_notebooks.WIDGET_VIEW]["model_id"] for c in nb.cells
                for o in c.get("outputs", []) if build_notebooks.WIDGET_VIEW in o.get("data", {})}
        assert len(ids) > 3, "the lesson has widgets"
        # the i-th id is derived from the name and i, whatever order the file lists them in
        assert ids == {build_notebooks.widget_id(f"{lang}/{stem}", i) for i in range(len(ids))}
