"""The language tables: the same keys and placeholders in both, the glossary kept,
clear errors for an unknown language or key."""

from __future__ import annotations

import re
import string

import pytest

from qkv_helpers import lang
from qkv_helpers.lang import LANGUAGES, STRINGS, get_language, set_language, t

HANGUL = re.compile(r"[\uac00-\ud7a3]")

# The glossary's keys (lang.py's "glossary" section): words, so Korean must be Hangul.
GLOSSARY_KEYS = [
    "attention", "query", "key", "value", "embedding", "token", "dot_product", "score",
    "scaling", "softmax", "temperature", "weights", "weighted_sum", "contextual_vector",
    "self_attention", "masked_self_attention", "causal_mask", "cross_attention",
    "multi_head_attention", "encoder", "decoder", "kv_cache", "head", "position",
]


def placeholders(text: str) -> set[str]:
    """Field names of a format string: ``"{n} of {total:.1f}"`` → ``{"n", "total"}``."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def glossary() -> list[tuple[str, set[str]]]:
    """(English term, accepted Korean forms) from the table in lang.py's docstring.

    "query / key / value" rows are split into their parts; a Korean term with a
    parenthetical, "크로스 어텐션 (인코더-디코더 어텐션)", may be used with or without it.
    """
    lines = lang.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if re.fullmatch(r"=+\s+=+", line.strip())]
    # the glossary, then the "one word per idea" table (tests/classroom/test_korean_prose.py)
    assert len(rules) == 6, "lang.py's docstring should hold the glossary and one-word tables"
    pairs = []
    for line in lines[rules[1] + 1:rules[2]]:
        english, korean = re.split(r"\s{2,}", line.strip())
        korean = re.sub(r"\s*\((Q, K, V)\)$", "", korean)
        en_parts, ko_parts = english.split(" / "), korean.split(" / ")
        assert len(en_parts) == len(ko_parts), line
        for en, ko in zip(en_parts, ko_parts):
            pairs.append((en, {ko, re.sub(r"\s*\([^()]*\)$", "", ko)}))
    return pairs


# --- the two tables agree ----------------------------------------------------------------


def test_one_table_per_language():
    assert set(STRINGS) == set(LANGUAGES) == {"ko", "en"}


def test_both_tables_have_the_same_keys():
    en, ko = set(STRINGS["en"]), set(STRINGS["ko"])
    assert not en - ko, f"keys missing from the Korean table: {sorted(en - ko)}"
    assert not ko - en, f"keys missing from the English table: {sorted(ko - en)}"


def test_both_tables_keep_the_same_order():
    """lang.py asks for the same order, section by section, so the tables read side by side."""
    en, ko = list(STRINGS["en"]), list(STRINGS["ko"])
    first = next((i for i, (a, b) in enumerate(zip(en, ko)) if a != b), None)
    assert first is None, f"the tables differ first at position {first}: en {en[first]!r}, " \
                          f"ko {ko[first]!r}"


@pytest.mark.parametrize("key", sorted(STRINGS["en"]))
def test_same_placeholders_in_both_languages(key):
    en, ko = STRINGS["en"][key], STRINGS["ko"][key]
    assert placeholders(en) == placeholders(ko), (key, en, ko)


def test_every_text_is_a_non_empty_string():
    for language, table in STRINGS.items():
        for key, text in table.items():
            assert isinstance(text, str) and text.strip(), (language, key)


def test_english_phrases_are_translated():
    """An English text of two or more words has Hangul in its Korean version."""
    untranslated = []
    for key, en in STRINGS["en"].items():
        words = re.findall(r"\b[A-Za-z]{3,}\b", re.sub(r"\{[^}]*\}", "", en))
        if len(words) >= 2 and not HANGUL.search(STRINGS["ko"][key]):
            untranslated.append(key)
    assert not untranslated, f"Korean texts with no Hangul: {untranslated}"


# --- the glossary ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", GLOSSARY_KEYS)
def test_glossary_keys_are_words_in_english_and_hangul_in_korean(key):
    en, ko = STRINGS["en"][key], STRINGS["ko"][key]
    assert re.search(r"[A-Za-z]{2,}", en) and not HANGUL.search(en), (key, en)
    assert HANGUL.search(ko), (key, ko)


def test_the_korean_table_uses_the_glossary_terms():
    """Where an English text is a glossary term, the Korean text is its glossary term."""
    terms = {en.lower(): ko for en, ko in glossary()}
    checked, wrong = 0, []
    for key, en in STRINGS["en"].items():
        if en.lower() in terms:
            checked += 1
            if STRINGS["ko"][key] not in terms[en.lower()]:
                wrong.append((key, en, STRINGS["ko"][key], sorted(terms[en.lower()])))
    assert not wrong, f"Korean texts that differ from the glossary: {wrong}"
    assert checked >= 15  # the check really ran


def test_the_glossary_has_the_terms_of_lessons_11_to_13():
    terms = dict(glossary())
    for english, korean in [("hidden state", "은닉 상태"), ("bias", "편향"),
                            ("block pool", "블록 풀"), ("serving", "서빙"),
                            ("arithmetic intensity", "산술 강도")]:
        assert korean in terms[english], (english, terms.get(english))


def test_glossary_spot_checks():
    assert STRINGS["ko"]["query"] == "쿼리" and STRINGS["en"]["query"] == "query"
    assert STRINGS["ko"]["value"] == "밸류"
    assert STRINGS["ko"]["softmax"] == "소프트맥스"
    assert STRINGS["ko"]["cross_attention"].startswith("크로스 어텐션")


def test_no_literal_translations():
    """COURSE.md: "스케일드 닷 프로덕트 어텐션", never "도트 제품"."""
    bad = [k for k, ko in STRINGS["ko"].items() if "도트 제품" in ko or "닷 제품" in ko]
    assert not bad


# --- set_language, get_language, t ----------------------------------------------------------


@pytest.mark.parametrize("language", ["ko", "en"])
def test_set_language_chooses_the_table(language):
    set_language(language)
    assert get_language() == language
    for key in ("query", "attention", "causal_mask"):
        assert t(key) == STRINGS[language][key]


@pytest.mark.parametrize("bad", ["fr", "KO", "english", "", None, "ko "])
def test_set_language_rejects_unknown_languages(bad):
    set_language("ko")
    with pytest.raises(ValueError, match=re.escape(f"lang must be one of {LANGUAGES}, got "
                                                   f"{bad!r}")):
        set_language(bad)
    assert get_language() == "ko"  # unchanged


@pytest.mark.parametrize("language", ["ko", "en"])
def test_t_names_an_unknown_key_and_the_language(language):
    set_language(language)
    with pytest.raises(KeyError, match=re.escape(f"no text 'no_such_key' in the {language!r} "
                                                 "language table")):
        t("no_such_key")


def test_t_fills_placeholders(monkeypatch):
    monkeypatch.setitem(STRINGS["en"], "_test_tokens", "{n} tokens, {d_k} wide")
    monkeypatch.setitem(STRINGS["ko"], "_test_tokens", "토큰 {n}개, 너비 {d_k}")
    set_language("en")
    assert t("_test_tokens", n=7, d_k=4) == "7 tokens, 4 wide"
    set_language("ko")
    assert t("_test_tokens", n=7, d_k=4) == "토큰 7개, 너비 4"
    with pytest.raises(KeyError):
        t("_test_tokens", n=7)  # a placeholder left unfilled


def test_korean_check_messages_put_an_aside_right_after_its_word():
    """One spacing for a parenthesised aside in the checkers' Korean: "달라요(지금 값: …)",
    never "달라요 (지금 값: …)" (a teacher's read found both). A tuple or formula that is
    itself the noun ("{name}에는 (쿼리, 키) 쌍마다") keeps its space."""
    spaced = {key: text for key, text in STRINGS["ko"].items() if key.startswith("check_")
              and re.search(r"요 \(|\S \(지금 ", text)}
    assert not spaced, spaced
    assert re.search(r"요 \(", "값이 아직 달라요 (지금 값: 1).")  # the pattern can match
