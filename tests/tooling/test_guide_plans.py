"""The teacher guides' plans add up, from one source: the lessons themselves.

Each lesson's minutes come from tools/lesson_time.py (the notebook's cells, counted one way;
tests/tooling/test_lesson_time.py checks the lesson's top, the guides' headings and the session
plans against it). Here: every lesson longer than a 45-minute period says where to cut it in
both guides, at a heading the lesson has, each part counted the same way and at most 40
minutes, so every period keeps 5 minutes for questions; the guides' overview names exactly
those lessons; and every exercise's answer is in the lesson's section of both guides.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import lesson_time  # noqa: E402
from build_notebooks import load  # noqa: E402

STEMS = lesson_time.stems()
GUIDES = {"ko": ROOT / "docs" / "teacher-guide.ko.md", "en": ROOT / "docs" / "teacher-guide.en.md"}
PERIOD = 45  # minutes in a school period
QUESTIONS = 5  # minutes every period keeps for questions
CUT = {
    "en": re.compile(r'\*\*Periods\*\*: cut before ((?:"[^"]+"(?: and )?)+) '
                     r'\((\d+ min(?: · \d+ min)*)\)'),
    "ko": re.compile(r'\*\*교시 나누기\*\*: ((?:"[^"]+" 절(?:과 )?)+) 앞에서 나눠요'
                     r'\((\d+분(?: · \d+분)*)\)'),
}
OVERVIEW = {"en": re.compile(r"longer than a 45-minute period \(([^)]*)\)"),
            "ko": re.compile(r"45분 교시보다 긴 강\(([^)]*)\)")}


def section(lang: str, stem: str) -> str:
    """The lesson's section of a guide, its lines joined (a quote may wrap)."""
    text = GUIDES[lang].read_text(encoding="utf-8")
    found = re.search(rf"^### {stem[:2]}\. .*?(?=^### |^## )", text, re.M | re.S)
    assert found, f"teacher guide ({lang}) has no section for lesson {stem[:2]}"
    return found.group(0)


def _joined(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text)


LONG = [stem for stem in STEMS if lesson_time.measure(stem).full > PERIOD]


@pytest.mark.parametrize("lang", GUIDES)
def test_the_overview_names_every_lesson_longer_than_a_period(lang):
    text = _joined(GUIDES[lang].read_text(encoding="utf-8"))
    (named,) = OVERVIEW[lang].findall(text)
    assert re.findall(r"\d\d", named) == [stem[:2] for stem in LONG]


@pytest.mark.parametrize("stem", LONG)
@pytest.mark.parametrize("lang", GUIDES)
def test_a_long_lesson_says_where_to_cut_and_each_part_fits_a_period(lang, stem):
    found = CUT[lang].findall(_joined(section(lang, stem)))
    assert len(found) == 1, f"{stem} ({lang}): one line saying where to cut, got {found}"
    quoted, minutes = found[0]
    cuts = re.findall(r'"([^"]+)"', quoted)
    pairs = {h[lang]: h for h in lesson_time.headings(stem)}
    assert all(c in pairs for c in cuts), f"{stem} ({lang}): {cuts} are not all headings"
    english = [pairs[c]["en"] for c in cuts]
    parts = lesson_time.parts(stem, english)
    assert [int(m) for m in re.findall(r"\d+", minutes)] == [p.full for p in parts], (
        f"{stem} ({lang}): the parts take {[p.full for p in parts]} minutes by the method")
    assert all(p.full <= PERIOD - QUESTIONS for p in parts), (
        f"{stem}: a part of {max(p.full for p in parts)} minutes leaves no time for questions")


@pytest.mark.parametrize("lang", GUIDES)
def test_both_guides_cut_a_lesson_at_the_same_place(lang):
    for stem in LONG:
        pairs = {h[lang]: h["en"] for h in lesson_time.headings(stem)}
        (quoted, _), = CUT[lang].findall(_joined(section(lang, stem)))
        (english, _), = CUT["en"].findall(_joined(section("en", stem)))
        assert ([pairs[c] for c in re.findall(r'"([^"]+)"', quoted)]
                == re.findall(r'"([^"]+)"', english))


def test_the_parts_cover_the_whole_lesson():
    for stem in LONG:
        whole = lesson_time.measure(stem)
        (english, _), = CUT["en"].findall(_joined(section("en", stem)))
        parts = lesson_time.parts(stem, re.findall(r'"([^"]+)"', english))
        assert sum(p.words for p in parts) == whole.words
        assert sum(p.code_cells + p.widgets + p.exercises for p in parts) == (
            whole.code_cells + whole.widgets + whole.exercises)


# --- every exercise's answer ----------------------------------------------------------------

ANSWER = re.compile(r"^(?:(\w+) = \.\.\.|def (\w+)\()", re.M)


def exercises() -> list[tuple[str, int, str]]:
    """(lesson, exercise number, the name the learner's answer sets) for every exercise."""
    found = []
    for stem in STEMS:
        cells = [c for c in load(stem).cells if "exercise" in c.tags]
        for number, cell in enumerate(cells, 1):
            names = [a or b for a, b in ANSWER.findall(cell.source["en"])]
            assert names, f"{stem} exercise {number}: no `name = ...` or `def name(` to answer"
            found.append((stem, number, names[-1]))
    return found


def test_the_exercises_are_listed():
    listed = exercises()
    assert ("07_decoder_masked_self_attention", 2, "my_rows") in listed
    assert len(listed) >= 2 * len(STEMS) - 8  # most lessons have two


@pytest.mark.parametrize("stem,number,name", exercises())
@pytest.mark.parametrize("lang", GUIDES)
def test_every_exercise_has_its_answer_in_the_guide(lang, stem, number, name):
    text = section(lang, stem)
    name_ = re.escape(name)  # in a code span, or a line of a code block
    assert re.search(rf"`[^`\n]*\b{name_}\b|^\s*{name_}\b", text, re.M), (
        f"teacher guide ({lang}), lesson {stem[:2]}: no answer for exercise {number} "
        f"(`{name} = ...`)")
