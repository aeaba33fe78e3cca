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
    lesson.code("my_answer = 42", solution=True)                     # tagged, collapsed

Code may differ between the languages only in comments and in ``lang=LANG``; the test
``tests/test_notebooks.py`` checks the built notebooks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LANGS = ("ko", "en")


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

        solution : tagged ``solution`` and collapsed; the student copies drop it.
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
        tags = (["solution"] if solution else []) + (["exercise"] if exercise else [])
        tags += ["nbval-ignore-output"] if ignore_output else []
        self.cells.append(Cell("code", texts, tags, source_hidden=solution, slide=slide))


def _clean(text: str) -> str:
    """Strip the blank lines a triple-quoted string starts and ends with."""
    return text.strip("\n")
