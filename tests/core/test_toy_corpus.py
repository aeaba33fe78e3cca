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
        pair = tc.build_sentence("cat", "was", en, "car")
        assert pair.korean == ("고양이가", "차", ko, "있었다")


# every (subject, verb, preposition, place) the grammar accepts, then adjectives that fit
_SENSIBLE = [w for w in itertools.product(tc.SUBJECTS, tc.VERBS, tc.PREPOSITIONS, tc.PLACES)
             if tc.nonsense(*w) is None]
sentences = st.sampled_from(_SENSIBLE).flatmap(lambda w: st.builds(
    tc.build_sentence, *map(st.just, w), st.sampled_from([None, *tc.adjectives_for(w[0])]),
    st.sampled_from([None, *tc.adjectives_for(w[3])])))


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


# --- every sentence makes sense: each rule below, stated independently of the module's tables,
# fails on the first grammar (any preposition with any place, any adjective with any noun,
# people as subjects)

CONTAINERS = {"box", "bag", "car", "house"}  # the places with an inside
PEOPLE = {"아이", "학생", "선생님", "child", "student", "teacher"}
BIG = {"bear", "horse", "lion", "tiger", "deer", "sheep"}
SMALL_PLACES = {"box", "bag", "chair", "table", "desk", "bench", "bed", "sofa"}
NO_COLOUR = {"tree", "lion", "monkey", "frog", "deer"}


@pytest.fixture(scope="module")
def everything():
    corpus = tc.make_corpus()
    return corpus.train + corpus.valid + corpus.heldout


def test_in_only_with_a_place_that_has_an_inside(everything):
    ins = [p.words[5] for p in everything if p.words[3] == "in"]
    assert ins and set(ins) <= CONTAINERS
    for place in ("tree", "bed", "chair", "table", "bridge"):  # 나무 안에, 침대 안에 …
        with pytest.raises(ValueError, match=f"preposition 'in' makes no sense with place "
                                             f"'{place}'"):
            tc.build_sentence("cat", "sat", "in", place)
    assert tc.build_sentence("cat", "sat", "in", "box").korean[-2] == "안에"


def test_no_person_subjects_so_no_honorifics_needed(everything):
    # 선생님 would need 선생님께서 … 앉으셨다; the subjects are animals
    subjects = {p.words[1] for p in everything}
    assert subjects == set(tc.SUBJECTS) and not subjects & PEOPLE
    assert not {w for p in everything for w in p.korean} & {n + "이" for n in PEOPLE}
    assert not any(k.startswith("선생님") for k in tc.Vocabulary().tokens)


def test_colours_only_on_nouns_that_have_one(everything):
    colours = {"red", "white", "black"}
    for p in everything:
        sa, s, _, _, pa, pl = p.words
        assert not (sa in colours and s in NO_COLOUR), p.english
        assert not (pa in colours and pl in NO_COLOUR), p.english
    assert {p.words[0] for p in everything} == {None, "big", "small", *colours}
    with pytest.raises(ValueError, match="subject_adjective 'red' makes no sense before 'tiger'"):
        tc.build_sentence("tiger", "lay", "under", "tree", subject_adjective="red")
    assert tc.build_sentence("tiger", "lay", "under", "tree", "white").korean[0] == "하얀"


def test_big_animals_do_not_fit_in_or_under_small_things(everything):
    for p in everything:
        _, s, _, prep, _, pl = p.words
        assert not (s in BIG and prep in ("in", "under", "on") and pl in SMALL_PLACES), \
            p.english
    with pytest.raises(ValueError, match="subject 'horse' is too big to be in place 'box'"):
        tc.build_sentence("horse", "was", "in", "box")
    horse = tc.build_sentence("horse", "was", "behind", "house")
    assert horse.korean == ("말이", "집", "뒤에", "있었다")


def test_verbs_take_the_prepositions_that_make_sense(everything):
    pairs = {(p.words[2], p.words[3]) for p in everything}
    assert ("hid", "on") not in pairs and ("stood", "in") not in pairs  # 위에 숨었다, 안에 섰다
    assert ("hid", "behind") in pairs and ("stood", "on") in pairs
    acts = {(p.words[1], p.words[2]) for p in everything}
    assert not acts & {("horse", "sat"), ("deer", "sat"), ("frog", "stood"), ("bird", "lay")}
    with pytest.raises(ValueError, match="verb 'hid' makes no sense with preposition 'on'"):
        tc.build_sentence("cat", "hid", "on", "mat")
    with pytest.raises(ValueError, match="subject 'horse' does not go with verb 'sat'"):
        tc.build_sentence("horse", "sat", "on", "rock")


def test_every_sentence_of_the_grammar_is_built_from_the_rules():
    # nonsense() is the only gate: every accepted choice builds, every refused one raises
    for words in itertools.product(["cat", "bear"], tc.VERBS, tc.PREPOSITIONS, tc.PLACES):
        if tc.nonsense(*words) is None:
            tc.build_sentence(*words)
        else:
            with pytest.raises(ValueError, match="makes no sense|too big|does not go with"):
                tc.build_sentence(*words)


def test_build_sentence_names_a_bad_word():
    with pytest.raises(ValueError, match="verb must be one of"):
        tc.build_sentence("cat", "ran", "on", "mat")
    with pytest.raises(ValueError, match="place_adjective"):
        tc.build_sentence("cat", "sat", "on", "mat", place_adjective="huge")


def test_vocabulary_round_trip_and_layout():
    vocab = tc.Vocabulary()
    assert vocab.tokens[:3] == list(tc.SPECIALS)
    assert len(set(vocab.tokens)) == len(vocab)
    pair = tc.build_sentence("deer", "was", "behind", "house", "small", "white")
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
    possible = {_combo(p) for p in corpus.train + corpus.valid} | corpus.heldout_pairs
    assert len(corpus.heldout_pairs) == round(0.15 * len(possible)) == 32
    # a big animal is never in a bag or a box: those combinations exist in no split
    assert ("bear", "bag") not in possible and ("cat", "bag") in possible
