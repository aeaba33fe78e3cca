"""The Korean prose of every lesson, the Korean teacher guide and the Korean language table:
no space between bold text and its particle, one word per idea (the table in lang.py's
docstring), 가중치 행렬 only for the learned matrices, FLOPs defined where it first appears.

Lessons are found by glob, so a new lesson is covered as soon as its source exists.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest

from qkv_helpers import lang

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
GUIDE = ROOT / "docs" / "teacher-guide.ko.md"
sys.path.insert(0, str(ROOT / "tools"))

import nbsource  # noqa: E402


def lesson_korean(path: Path) -> str:
    """Every Korean cell of a lesson (prose and code), in order, from its source."""
    cells = nbsource.read(path).cells
    return "\n\n".join(cell.source["ko"] for cell in cells)


def korean_texts() -> dict[str, str]:
    """name → Korean text, for every lesson, the teacher guide and lang.py's table."""
    texts = {path.stem: lesson_korean(path) for path in SOURCES}
    texts["docs/teacher-guide.ko.md"] = GUIDE.read_text(encoding="utf-8")
    texts["lang.py (ko)"] = "\n".join(lang.STRINGS["ko"].values())
    return texts


TEXTS = korean_texts()


def context(text: str, match: re.Match, width: int = 30) -> str:
    return text[max(0, match.start() - width):match.end() + width].replace("\n", " ")


def test_every_lesson_is_read():
    assert len(SOURCES) >= 11 and all(re.search(r"[가-힣]", TEXTS[p.stem]) for p in SOURCES)


# --- bold and its particle -------------------------------------------------------------------

PARTICLES = ("은", "는", "이", "가", "을", "를", "의", "에", "에서", "에게", "로", "으로", "와",
             "과", "도", "만", "이에요", "예요", "이고", "이라", "처럼", "보다", "까지", "부터")
# closing bold, then a space, then a particle standing alone ("는", not "는데" or "이 책")
BOLD_SPACE_PARTICLE = re.compile(r"(\*\*|</b>)[ \t]+(" + "|".join(sorted(PARTICLES, key=len,
                                 reverse=True)) + r")(?![가-힣])")


def test_the_pattern_finds_what_the_review_found():
    for bad in ("**쿼리(Q)** 는 내가", "**선형 변환(프로젝션)** 이에요.", "**−∞** 로 바꿔요",
                "**마지막 축(각 행)** 을 따라", "**생성할 때(추론)** 는 다음"):
        assert BOLD_SPACE_PARTICLE.search(bad), bad
    for good in ("**쿼리**(Q)는 내가", "**선형 변환**(프로젝션)이에요.", "**−∞**로 바꿔요",
                 "**써요**\n\n이 과정이", "**PagedAttention(vLLM).** 요청이"):
        assert not BOLD_SPACE_PARTICLE.search(good), good


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_no_space_between_bold_and_its_particle(name):
    text = TEXTS[name]
    found = [context(text, m) for m in BOLD_SPACE_PARTICLE.finditer(text)]
    assert not found, (f"{name}: a particle after bold reads as a spacing error; write "
                       f"'**쿼리**(Q)는' or use <b>: {found}")


# --- one word per idea ------------------------------------------------------------------------


def one_word_table() -> list[tuple[str, list[str]]]:
    """(word to use, [forms never used]) from the second table in lang.py's docstring."""
    lines = lang.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if re.fullmatch(r"=+\s+=+", line.strip())]
    rows = []
    for line in lines[rules[4] + 1:rules[5]]:
        use, never = re.split(r"\s{2,}", line.strip())
        rows.append((use, [form.strip() for form in never.split(",")]))
    return rows


ONE_WORD = one_word_table()


def test_the_one_word_table_has_the_ideas_of_the_review():
    uses = {use for use, _ in ONE_WORD}
    assert {"강", "레이어", "스텝", "KV 헤드", "차원 d_k", "매개변수", "은닉 상태", "멀티쿼리",
            "윈도",
            "블록 풀"} <= uses
    assert all(never for _, never in ONE_WORD)


def never_pattern(form: str) -> re.Pattern:
    # a form counts where a word starts: "이 강의" is caught, "03강의" (03강 + 의) is not
    return re.compile(r"(?<![0-9A-Za-z가-힣/])" + re.escape(form))


def test_never_pattern_reads_word_starts():
    assert never_pattern("강의").search("이 강의에서는")
    assert not never_pattern("강의").search("03강의 주제")
    assert never_pattern("층").search("32개 층")
    assert not never_pattern("층").search("계층")
    assert never_pattern("K/V 헤드").search("K/V 헤드 8개")


@pytest.mark.parametrize("name", sorted(TEXTS))
@pytest.mark.parametrize("use,never", ONE_WORD, ids=[use for use, _ in ONE_WORD])
def test_one_word_per_idea(name, use, never):
    text = TEXTS[name]
    found = [(form, context(text, m)) for form in never for m in never_pattern(form).finditer(text)]
    assert not found, f"{name}: write {use!r}, not {found}"


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_weight_matrix_means_the_learned_matrices(name):
    """가중치 alone is the attention weights; 가중치 행렬 is W_Q … and says so nearby."""
    text = TEXTS[name]
    found = [context(text, m) for m in re.finditer("가중치 행렬", text)
             if not re.search(r"W|매개변수", text[max(0, m.start() - 25):m.end() + 25])]
    assert not found, f"{name}: 가중치 행렬 names the learned W matrices; attention weights " \
                      f"are 어텐션 가중치: {found}"


@pytest.mark.parametrize("name", [p.stem for p in SOURCES] + ["docs/teacher-guide.ko.md"])
def test_flops_is_defined_where_it_first_appears(name):
    text = TEXTS[name]
    first = text.find("FLOPs")
    if first == -1:
        pytest.skip("no FLOPs in this text")
    assert text.startswith("FLOPs(부동소수점 연산 수)", first), (
        f"{name}: the first FLOPs should read 'FLOPs(부동소수점 연산 수)': "
        f"{text[max(0, first - 30):first + 40]!r}")


def unrendered_bold(text: str) -> list[str]:
    """Bold that Markdown (CommonMark's flanking rule) would not close: a closing ``**``
    after punctuation touching a Hangul letter, as in ``**"…"**이에요`` or ``**−∞**로``.
    The asterisks would show. Use <b>…</b> there. ``**`` are paired in order per paragraph."""
    def punct(ch: str) -> bool:
        return unicodedata.category(ch)[0] in "PS"

    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        marks = [m.start() for m in re.finditer(r"\*\*", paragraph)]
        for start, end in zip(marks[0::2], marks[1::2]):
            before, after = paragraph[end - 1], paragraph[end + 2:end + 3]
            if punct(before) and re.fullmatch("[가-힣]", after or " "):
                found.append(paragraph[start:end + 3])
    return found


def test_unrendered_bold_is_found():
    assert unrendered_bold('예문은 **"The cat sat on the mat."**이에요')
    assert unrendered_bold("점수를 **−∞**로 바꿔요")
    assert not unrendered_bold("**쿼리**(Q)는 <b>−∞</b>로 **마지막 축**(각 행)을")


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_bold_before_a_particle_still_renders(name):
    found = unrendered_bold(TEXTS[name])
    assert not found, f"{name}: this bold would not render (write <b>…</b>): {found}"


# --- the particle after a value ----------------------------------------------------------------
# A Korean particle with two forms (은/는, 이/가, …) is chosen by the sound of the word before it.
# After a placeholder the value is unknown, so no such particle may follow one ("점수 {score}는"
# renders "점수 2.91는"); after a number written in prose, the particle must fit how the number is
# read (5 is 오: "5를", 3 is 삼: "3을"). Every lang.py key and every Korean cell is scanned.

# (after a final consonant, after a vowel); 으로/로 also takes 로 after ㄹ. (이고 is left out: after
# a vowel both "4고" and "4이고" are standard.)
PARTICLE_PAIRS = [("이에요", "예요"), ("이어야", "여야"), ("이라서", "라서"), ("이라는", "라는"),
                  ("이라고", "라고"), ("이라", "라"), ("으로", "로"), ("이랑", "랑"),
                  ("이나", "나"),
                  ("은", "는"), ("이", "가"), ("을", "를"), ("과", "와")]
_FORMS = sorted({form for pair in PARTICLE_PAIRS for form in pair}, key=len, reverse=True)
# a particle, then something that is not a Hangul letter (so "{n}가지", "3개" are not particles);
# 으로/로 may go on as 으로는, 로도, 로서, 로부터
_PARTICLE = r"(?P<particle>" + "|".join(_FORMS) + r")(?:(?<=로)(?:는|도|서|부터))?(?![가-힣])"
AFTER_PLACEHOLDER = re.compile(r"\{[^{}]*\}(?:</b>|\*\*|`|\"|'|\])?" + _PARTICLE)
# a number in prose ("2.91는"), or a shape standing alone ("(7, 5)이에요")
AFTER_NUMBER = re.compile(r"(?:(?<![\w.)\]])(?P<number>\d[\d,]*(?:\.\d+)?)|(?<![\w가-힣)])"
                          r"\((?P<shape>\d[\d, ]*)\))" + _PARTICLE)
DIGIT_SOUND = {"0": "consonant", "1": "rieul", "2": "vowel", "3": "consonant", "4": "vowel",
               "5": "vowel", "6": "consonant", "7": "rieul", "8": "rieul", "9": "vowel"}


def number_sound(number: str) -> str:
    """How a number written in digits ends when read aloud: "consonant", "rieul" or "vowel".
    A last digit 0 is read 십, 백, 천, 만 or 영: a final consonant."""
    return DIGIT_SOUND[number.replace(",", "").strip()[-1]]


def right_particle(particle: str, sound: str) -> str:
    for after_consonant, after_vowel in PARTICLE_PAIRS:
        if particle in (after_consonant, after_vowel):
            if after_consonant == "으로":
                return "로" if sound in ("vowel", "rieul") else "으로"
            return after_vowel if sound == "vowel" else after_consonant
    raise ValueError(particle)


def particle_slips(text: str) -> list[str]:
    """Particles after a placeholder, and wrong particles after a number, in ``text``."""
    found = [f"{m.group(0)!r}: no particle after a placeholder"
             for m in AFTER_PLACEHOLDER.finditer(text)]
    for m in AFTER_NUMBER.finditer(text):
        value = m.group("number") or m.group("shape")
        right = right_particle(m.group("particle"), number_sound(value))
        if m.group("particle") != right:
            found.append(f"{context(text, m, 15)!r}: {m.group('particle')} → {right}")
    return found


def test_the_particle_scan_finds_what_the_review_found():
    assert particle_slips("가장 큰 점수 {score}는 키의 것")
    assert particle_slips("가중치 {weight}가 돼요")
    assert particle_slips("점수 2.91는 커요") and particle_slips("가중치 0.47가 돼요")
    assert particle_slips('"mat"과 5을 바꿔요') and particle_slips("모양은 (7, 5)이에요")
    assert particle_slips("<b>{token}</b>은 앞") and particle_slips("값 10를 넣어요")
    assert particle_slips("입력은 out.hidden_states[{layer}]예요")
    assert particle_slips("7으로 나눠요") and particle_slips("3로 나눠요")
    for good in ("점수 {score}, 가중치 {weight}.", "{n}개의 토큰", "{n}가지", "5를 바꿔요",
                 "3을 넣어요", "7로 나눠요", "3으로 나눠요", "가중치({weight})를 줘요",
                 "토큰 {n}개예요", "모양이 (7, 5)예요", "1.00이에요", "2.91은 커요",
                 "값 10을 넣어요", "4096토큰", "행렬(9, 32)을", "{name}의 모양", "{n}에서"):
        assert not particle_slips(good), (good, particle_slips(good))


LANG_KO = dict(lang.STRINGS["ko"])


@pytest.mark.parametrize("key", sorted(LANG_KO))
def test_no_wrong_particle_after_a_value_in_lang(key):
    found = particle_slips(LANG_KO[key])
    assert not found, f"lang.py {key!r}: choose the particle by the value, or rephrase: {found}"


@pytest.mark.parametrize("name", [p.stem for p in SOURCES] + ["docs/teacher-guide.ko.md"])
def test_no_wrong_particle_after_a_number_in_prose(name):
    found = particle_slips(TEXTS[name])
    assert not found, f"{name}: choose the particle by how the number is read: {found}"


# --- translated turns of phrase ----------------------------------------------------------------
# "스텝마다의 FLOPs" is English "per-step FLOPs" word for word: "스텝별 FLOPs", "스텝 하나의 …".
# "솔직한 주의점" and "몇 할" read translated or dated; "풀이" is the course's word for solutions,
# so the block pool is 블록 풀.
CALQUES = ["마다의", "솔직한 주의점", "몇 할", "풀이 다 차", "그룹 크기만큼 줄"]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_no_translated_turns_of_phrase(name):
    text = TEXTS[name]
    found = [context(text, m) for calque in CALQUES for m in re.finditer(re.escape(calque), text)]
    assert not found, f"{name}: rephrase {found}"
