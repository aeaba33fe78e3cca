"""The toy English→Korean corpus of lesson 14: the Hangul rule, the grammar, the splits."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qkv_helpers import toy_corpus as tc


@pytest.mark.parametrize("syllable, final", [
    ("가", False), ("각", True), ("힣", True), ("히", False), ("곰", True), ("개", False),
    ("님", True), ("이", False), ("말", True), ("뱀", True), ("차", False), ("닭", True),
])
def test_final_consonant_exact(syllable, final):
    assert tc.has_final_consonant(syllable) is final


@pytest.mark.parametrize("noun, particle", [
    ("곰", "이"), ("개", "가"), ("학생", "이"), ("고양이", "가"), ("선생님", "이"),
    ("말", "이"), ("사자", "가"), ("뱀", "이"),
])
def test_subject_particle_exact(noun, particle):
    assert tc.subject_particle(noun) == particle


# An independent reference: decompose with unicodedata (NFD gives a trailing jamo
# U+11A8..U+11C2 exactly when the syllable has a final consonant).
def _final_by_nfd(syllable):
    import unicodedata
    return any(0x11A8 <= ord(c) <= 0x11C2 for c in unicodedata.normalize("NFD", syllable))


@given(st.integers(0xAC00, 0xD7A3))
def test_final_consonant_matches_unicode_decomposition(code):
    assert tc.has_final_consonant(chr(code)) == _final_by_nfd(chr(code))


@pytest.mark.parametrize("bad", ["a", "ㄱ", "가나", "", 3, None])
def test_final_consonant_refuses_non_syllables(bad):
    with pytest.raises(ValueError, match="syllable"):
        tc.has_final_consonant(bad)


def test_the_cat_sat_on_the_mat():
    pair = tc.build_sentence("cat", "sat", "on", "mat")
    assert pair.english == ("the", "cat", "sat", "on", "the", "mat")
    assert pair.korean == ("고양이가", "매트", "위에", "앉았다")
    assert pair.alignment == (1, 5, 3, 2)


def test_every_preposition_becomes_its_postposition():
    for en, ko in {"on": "위에", "in": "안에", "under": "아래에", "behind": "뒤에"}.items():
        pair = tc.build_sentence("bear", "hid", en, "box")
        assert pair.korean == ("곰이", "상자", ko, "숨었다")


sentences = st.builds(
    tc.build_sentence, st.sampled_from(list(tc.SUBJECTS)), st.sampled_from(list(tc.VERBS)),
    st.sampled_from(list(tc.PREPOSITIONS)), st.sampled_from(list(tc.PLACES)),
    st.sampled_from([None, *tc.ADJECTIVES]), st.sampled_from([None, *tc.ADJECTIVES]))


@given(sentences)
def test_alignment_properties(pair):
    # one English word per Korean token, each translated by the tables; "the" never aligned
    assert len(pair.alignment) == len(pair.korean)
    assert len(set(pair.alignment)) == len(pair.alignment)
    tables = {**tc.SUBJECTS, **tc.VERBS, **tc.PREPOSITIONS, **tc.PLACES, **tc.ADJECTIVES}
    for ko, i in zip(pair.korean, pair.alignment):
        en = pair.english[i]
        assert en != "the"
        if en in tc.SUBJECTS:
            assert ko == tables[en] + tc.subject_particle(tables[en])
        else:
            assert ko == tables[en]
    # every English word but "the" is translated
    assert sorted(pair.alignment) == [i for i, w in enumerate(pair.english) if w != "the"]
    # the verb comes last in Korean, the postposition right after the place noun
    assert pair.english[pair.alignment[-1]] in tc.VERBS
    assert pair.english[pair.alignment[-2]] in tc.PREPOSITIONS
    assert pair.english[pair.alignment[-3]] in tc.PLACES
    # words() gives back what was chosen
    sa, s, v, p, pa, pl = pair.words
    assert tc.build_sentence(s, v, p, pl, sa, pa) == pair


def test_build_sentence_names_a_bad_word():
    with pytest.raises(ValueError, match="verb must be one of"):
        tc.build_sentence("cat", "ran", "on", "mat")
    with pytest.raises(ValueError, match="place_adjective"):
        tc.build_sentence("cat", "sat", "on", "mat", place_adjective="huge")


def test_vocabulary_round_trip_and_layout():
    vocab = tc.Vocabulary()
    assert vocab.tokens[:3] == list(tc.SPECIALS)
    assert len(set(vocab.tokens)) == len(vocab)
    pair = tc.build_sentence("student", "was", "behind", "house", "small", "white")
    assert vocab.decode(vocab.encode(pair.english)) == list(pair.english)
    assert vocab.decode(vocab.encode(pair.korean)) == list(pair.korean)
    korean = set(vocab.decode(vocab.korean_ids))
    assert set(pair.korean) <= korean and not set(pair.english) & korean
    with pytest.raises(ValueError, match="not a word"):
        vocab.encode(["zebra"])


def test_splits_are_deterministic_and_disjoint():
    a, b = tc.make_corpus(seed=3), tc.make_corpus(seed=3)
    assert a == b
    assert tc.make_corpus(seed=4).train != a.train
    sentences = [p.english for p in a.train + a.valid + a.heldout]
    assert len(sentences) == len(set(sentences)) == 3400


def _combo(pair):
    _, subject, _, _, _, place = pair.words
    return subject, place


def test_heldout_combinations_never_in_training():
    corpus = tc.make_corpus()
    train_combos = {_combo(p) for p in corpus.train + corpus.valid}
    held_combos = {_combo(p) for p in corpus.heldout}
    assert held_combos <= corpus.heldout_pairs
    assert not train_combos & corpus.heldout_pairs
    # yet every word of the held-out sentences is seen in training
    train_words = {w for p in corpus.train for w in p.english + p.korean}
    assert all(w in train_words for p in corpus.heldout for w in p.english + p.korean)
    n_combos = len(list(itertools.product(tc.SUBJECTS, tc.PLACES)))
    assert len(corpus.heldout_pairs) == round(0.15 * n_combos)
