"""A toy English→Korean parallel corpus with its gold word alignment (lesson 14).

One small grammar makes every sentence::

    the [adjective] SUBJECT VERB PREPOSITION the [adjective] PLACE
    →  [형용사] 주어+이/가  [형용사] 장소  후치사  동사

    the big cat sat on the mat   →   큰 고양이가 매트 위에 앉았다

Korean needs two reorderings: the verb moves to the end, and the preposition becomes
a postposition after the noun (on → 위에, in → 안에, under → 아래에, behind → 뒤에;
in Korean school grammar each is a noun, 위/안/아래/뒤, with the particle 에).
The subject particle is 이 after a syllable with a final consonant (받침) and 가
after one without (곰이, 개가): :func:`subject_particle` reads it from the syllable.

Every sentence makes sense (:func:`nonsense` says why one would not): the subjects are
animals (a person such as 선생님 would need honorific verbs), "in" goes only with a
place that has an inside (상자 안에, never 나무 안에), a big animal does not fit in or
under a small thing, one hides behind a thing but not on it, and a colour goes only with
a noun that comes in it (:data:`PLACE_PREPOSITIONS`, :data:`VERB_PREPOSITIONS`,
:data:`COLOURS`, ...).

One token per English word and per Korean eojeol (어절, the space-separated words).
Each Korean token comes from exactly one English word: :attr:`Pair.alignment` holds
that word's index. "the" has no Korean token.

Splits are deterministic (:func:`make_corpus`): ``train``, ``valid`` (new sentences of
seen combinations) and ``heldout``: sentences whose (subject, place) pair never occurs
in training, though every word does — systematic generalisation.

Examples
--------
>>> pair = build_sentence("cat", "sat", "on", "mat", subject_adjective="big")
>>> pair.english
('the', 'big', 'cat', 'sat', 'on', 'the', 'mat')
>>> pair.korean
('큰', '고양이가', '매트', '위에', '앉았다')
>>> pair.alignment          # index of the English word each Korean token translates
(1, 2, 6, 4, 3)
>>> subject_particle("곰"), subject_particle("개")
('이', '가')
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t

__all__ = [
    "ADJECTIVES",
    "BIG_ANIMALS",
    "CANNOT",
    "COLOURS",
    "PLACES",
    "PLACE_PREPOSITIONS",
    "PREPOSITIONS",
    "SPECIALS",
    "SUBJECTS",
    "VERBS",
    "VERB_PREPOSITIONS",
    "Corpus",
    "Pair",
    "Vocabulary",
    "build_sentence",
    "has_final_consonant",
    "adjectives_for",
    "make_corpus",
    "nonsense",
    "subject_particle",
]

SUBJECTS = {
    "cat": "고양이", "dog": "개", "bear": "곰", "rabbit": "토끼", "bird": "새",
    "mouse": "쥐", "fox": "여우", "deer": "사슴", "horse": "말", "chicken": "닭",
    "lion": "사자", "monkey": "원숭이", "sheep": "양", "frog": "개구리",
    "duck": "오리", "tiger": "호랑이",
}
"""English subject → Korean noun (the particle 이/가 is added by the rule). All animals:
a verb needs no honorific form for them (a teacher would take 선생님께서 … 앉으셨다)."""

BIG_ANIMALS = frozenset({"bear", "deer", "horse", "lion", "sheep", "tiger"})
"""The subjects too big to sit in a box or lie under a chair (see :data:`PLACE_PREPOSITIONS`)."""

VERBS = {"sat": "앉았다", "lay": "누웠다", "stood": "섰다", "hid": "숨었다", "was": "있었다"}
"""English verb (past tense) → Korean verb; each takes a place with 에."""

VERB_PREPOSITIONS = {
    "sat": ("on", "in", "under", "behind"), "lay": ("on", "in", "under", "behind"),
    "stood": ("on", "under", "behind"), "hid": ("in", "under", "behind"),
    "was": ("on", "in", "under", "behind"),
}
"""The prepositions each verb takes: one hides in, under or behind a thing, not on it;
one stands on, under or behind it (상자 안에 섰다 is odd Korean)."""

CANNOT = {"horse": ("sat",), "deer": ("sat",), "bird": ("lay",), "frog": ("stood",)}
"""Verbs an animal does not do: a horse does not sit, a frog does not stand."""

PREPOSITIONS = {"on": "위에", "in": "안에", "under": "아래에", "behind": "뒤에"}
"""English preposition → Korean postposition (it follows the noun)."""

PLACES = {
    "mat": "매트", "bed": "침대", "table": "탁자", "chair": "의자", "box": "상자",
    "tree": "나무", "car": "차", "bag": "가방", "desk": "책상", "sofa": "소파",
    "rock": "바위", "house": "집", "bench": "벤치", "bridge": "다리",
}
"""English place noun → Korean noun (no particle: the postposition follows)."""

ANY, SMALL = "any", "small"
PLACE_PREPOSITIONS = {
    "mat": {"on": ANY},
    "bed": {"on": SMALL, "under": SMALL, "behind": ANY},
    "table": {"on": SMALL, "under": SMALL, "behind": ANY},
    "chair": {"on": SMALL, "under": SMALL, "behind": ANY},
    "box": {"in": SMALL, "on": SMALL, "behind": SMALL},
    "tree": {"under": ANY, "behind": ANY},
    "car": {"in": SMALL, "on": SMALL, "under": SMALL, "behind": ANY},
    "bag": {"in": SMALL, "behind": SMALL},
    "desk": {"on": SMALL, "under": SMALL, "behind": ANY},
    "sofa": {"on": SMALL, "under": SMALL, "behind": ANY},
    "rock": {"on": ANY, "behind": ANY},
    "house": {"in": SMALL, "behind": ANY},
    "bench": {"on": SMALL, "under": SMALL, "behind": ANY},
    "bridge": {"on": ANY, "under": ANY},
}
"""For each place, the prepositions that make sense with it and who fits there: ``"any"``
animal, or only a ``"small"`` one (not in :data:`BIG_ANIMALS`). "in" only with a place
that has an inside (a box, a car, a bag, a house: 상자 안에, never 나무 안에 or 침대 안에);
"under" only with a place that has room under it."""

ADJECTIVES = {"big": "큰", "small": "작은", "red": "빨간", "white": "하얀", "black": "검은"}
"""English adjective → Korean adjective (before the noun in both languages)."""

COLOURS = {
    "cat": ("white", "black"), "dog": ("white", "black"), "bear": ("white", "black"),
    "rabbit": ("white", "black"), "bird": ("red", "white", "black"), "mouse": ("white",),
    "fox": ("white",), "horse": ("white", "black"), "chicken": ("white", "black"),
    "sheep": ("white", "black"), "duck": ("white",), "tiger": ("white",),
    "rock": ("white", "black"), "bridge": ("red", "white"),
    **dict.fromkeys(("mat", "bed", "table", "chair", "box", "car", "bag", "desk", "sofa",
                     "house", "bench"), ("red", "white", "black")),
}
"""The colours a noun can have (none listed: no colour; a red tiger is not a thing). Every
noun can be big or small."""

SPECIALS = ("<pad>", "<bos>", "<eos>")
"""Padding, beginning and end of sentence: ids 0, 1, 2."""

_FIRST_SYLLABLE, _LAST_SYLLABLE = 0xAC00, 0xD7A3  # 가 … 힣
_FINALS = 28  # 27 final consonants, or none


def has_final_consonant(syllable: str) -> bool:
    """Whether a Hangul syllable ends in a final consonant (받침).

    A precomposed syllable is ``0xAC00 + (initial · 21 + vowel) · 28 + final``, with
    ``final = 0`` for none, so the final is the code's remainder by 28.

    >>> has_final_consonant("곰"), has_final_consonant("개"), has_final_consonant("님")
    (True, False, True)
    """
    if not isinstance(syllable, str) or len(syllable) != 1:
        raise ValueError(t("err_syllable_type", got=repr(syllable)))
    code = ord(syllable)
    if not _FIRST_SYLLABLE <= code <= _LAST_SYLLABLE:
        raise ValueError(t("err_syllable_range", got=repr(syllable), code=f"{code:04X}"))
    return (code - _FIRST_SYLLABLE) % _FINALS != 0


def subject_particle(noun: str) -> str:
    """The subject particle after ``noun``: 이 after a final consonant, else 가.

    >>> subject_particle("학생"), subject_particle("고양이"), subject_particle("선생님")
    ('이', '가', '이')
    """
    if not isinstance(noun, str) or not noun or not (
            _FIRST_SYLLABLE <= ord(noun[-1]) <= _LAST_SYLLABLE):
        raise ValueError(t("err_noun_korean", got=repr(noun)))
    return "이" if has_final_consonant(noun[-1]) else "가"


class Pair(NamedTuple):
    """One sentence and its translation, tokenised, with the gold word alignment."""

    english: tuple
    """The English tokens, one per word."""
    korean: tuple
    """The Korean tokens, one per eojeol."""
    alignment: tuple
    """For each Korean token, the index of the English token it translates."""

    @property
    def words(self) -> tuple:
        """The content words chosen: ``(subject_adjective, subject, verb, preposition,
        place_adjective, place)``, ``None`` for a missing adjective."""
        e = list(self.english)
        subject_adjective = e[1] if e[1] in ADJECTIVES else None
        rest = e[2:] if subject_adjective else e[1:]  # subject ... place
        subject, verb, preposition = rest[0], rest[1], rest[2]
        place_adjective = rest[4] if len(rest) == 6 else None
        return subject_adjective, subject, verb, preposition, place_adjective, rest[-1]


def _choice(value, name: str, table: dict, optional: bool = False):
    if optional and value is None:
        return None
    if not isinstance(value, str) or value not in table:
        allowed = ", ".join(table) + (t("err_choice_or_none") if optional else "")
        raise ValueError(t("err_choice", name=name, allowed=allowed, got=repr(value)))
    return value


def adjectives_for(noun: str) -> tuple:
    """The adjectives that make sense before ``noun``: big, small and its colours.

    >>> adjectives_for("tiger"), adjectives_for("tree")
    (('big', 'small', 'white'), ('big', 'small'))
    """
    return ("big", "small", *COLOURS.get(noun, ()))


def nonsense(subject: str, verb: str, preposition: str, place: str,
             subject_adjective: str | None = None,
             place_adjective: str | None = None) -> tuple | None:
    """Why a sentence of known words makes no sense, or ``None`` if it does.

    The reason is ``(rule, fields)``: ``rule`` one of ``"place"`` (the place does not
    take the preposition), ``"size"`` (the animal is too big for it), ``"verb"`` (the
    verb does not take the preposition), ``"animal"`` (the animal does not do that) and
    ``"adjective"``; ``fields`` the words involved and what is allowed instead.

    >>> nonsense("cat", "sat", "in", "tree")
    ('place', {'preposition': 'in', 'place': 'tree', 'allowed': 'under, behind'})
    >>> nonsense("cat", "sat", "in", "box") is None
    True
    """
    where = PLACE_PREPOSITIONS[place]
    if preposition not in where:
        return "place", {"preposition": preposition, "place": place,
                         "allowed": ", ".join(where)}
    if where[preposition] == SMALL and subject in BIG_ANIMALS:
        return "size", {"subject": subject, "preposition": preposition, "place": place}
    if preposition not in VERB_PREPOSITIONS[verb]:
        return "verb", {"verb": verb, "preposition": preposition,
                        "allowed": ", ".join(VERB_PREPOSITIONS[verb])}
    if verb in CANNOT.get(subject, ()):
        return "animal", {"subject": subject, "verb": verb}
    for which, adjective, noun in (("subject_adjective", subject_adjective, subject),
                                   ("place_adjective", place_adjective, place)):
        if adjective is not None and adjective not in adjectives_for(noun):
            return "adjective", {"which": which, "adjective": adjective, "noun": noun,
                                 "allowed": ", ".join(adjectives_for(noun))}
    return None


def build_sentence(subject: str, verb: str, preposition: str, place: str,
                   subject_adjective: str | None = None,
                   place_adjective: str | None = None) -> Pair:
    """One sentence of the grammar and its Korean translation, from its words.

    A sentence that makes no sense (:func:`nonsense`) is refused with the reason.

    >>> build_sentence("bear", "hid", "under", "table", place_adjective="red").korean
    Traceback (most recent call last):
        ...
    ValueError: subject 'bear' is too big to be under place 'table' (the bear is in BIG_ANIMALS)
    >>> build_sentence("cat", "hid", "under", "table", place_adjective="red").korean
    ('고양이가', '빨간', '탁자', '아래에', '숨었다')
    """
    subject = _choice(subject, "subject", SUBJECTS)
    verb = _choice(verb, "verb", VERBS)
    preposition = _choice(preposition, "preposition", PREPOSITIONS)
    place = _choice(place, "place", PLACES)
    subject_adjective = _choice(subject_adjective, "subject_adjective", ADJECTIVES, True)
    place_adjective = _choice(place_adjective, "place_adjective", ADJECTIVES, True)
    why = nonsense(subject, verb, preposition, place, subject_adjective, place_adjective)
    if why is not None:
        raise ValueError(t("err_nonsense_" + why[0], **why[1]))  # the rule's text

    english, korean, alignment = ["the"], [], []

    def word(en: str, ko: str | None = None) -> None:  # ko aligned to this English word
        if ko is not None:
            korean.append(ko)
            alignment.append(len(english))
        english.append(en)

    if subject_adjective:
        word(subject_adjective, ADJECTIVES[subject_adjective])
    noun = SUBJECTS[subject]
    word(subject, noun + subject_particle(noun))
    i_verb = len(english)
    english.append(verb)  # its Korean comes last
    i_preposition = len(english)
    english.append(preposition)  # its Korean follows the place noun
    english.append("the")
    if place_adjective:
        word(place_adjective, ADJECTIVES[place_adjective])
    word(place, PLACES[place])
    korean += [PREPOSITIONS[preposition], VERBS[verb]]
    alignment += [i_preposition, i_verb]
    return Pair(tuple(english), tuple(korean), tuple(alignment))


def _all_words() -> tuple[list, list]:
    english = sorted({"the", *SUBJECTS, *VERBS, *PREPOSITIONS, *PLACES, *ADJECTIVES})
    korean = sorted({*(n + subject_particle(n) for n in SUBJECTS.values()), *VERBS.values(),
                     *PREPOSITIONS.values(), *PLACES.values(), *ADJECTIVES.values()})
    return english, korean


class Vocabulary:
    """Token ids for both languages in one table: the specials, English, then Korean.

    One table, so that one embedding matrix serves the encoder and the decoder (as in
    :class:`~qkv_helpers.decoding.TinyTransformer`).

    >>> vocab = Vocabulary()
    >>> vocab.encode(["the", "cat"]), vocab.decode(vocab.encode(["고양이가"]))
    ([42, 14], ['고양이가'])
    """

    def __init__(self):
        english, korean = _all_words()
        self.tokens = [*SPECIALS, *english, *korean]
        self.index = {tok: i for i, tok in enumerate(self.tokens)}
        self.pad, self.bos, self.eos = 0, 1, 2
        self.korean_ids = np.arange(len(SPECIALS) + len(english), len(self.tokens))

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, tokens) -> list:
        """Token strings → ids."""
        if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)):
            raise TypeError(t("err_vocab_tokens", got=f"{type(tokens).__name__} "
                                                        f"{tokens!r}"[:150]))
        ids = []
        for tok in tokens:
            if tok not in self.index:
                raise ValueError(t("err_vocab_word", got=repr(tok)))
            ids.append(self.index[tok])
        return ids

    def decode(self, ids) -> list:
        """Ids → token strings."""
        ids = validate.int_sequence(ids, "ids", low=0, min_len=0)
        if len(ids) and ids.max() >= len(self.tokens):
            raise ValueError(t("err_vocab_ids", size=len(self.tokens), got=ids.max()))
        return [self.tokens[int(i)] for i in ids]


class Corpus(NamedTuple):
    """The deterministic splits of :func:`make_corpus`, each a list of :class:`Pair`."""

    train: list
    valid: list
    heldout: list
    heldout_pairs: frozenset
    """The (subject, place) combinations never seen in training."""


@functools.cache  # the tables do not change: work it out once per pair
def _sentences_of(subject: str, place: str) -> tuple[tuple, tuple, tuple]:
    """What a sentence with this subject and place can say: its (verb, preposition) pairs
    and the adjectives (``None`` first) of each noun."""
    actions = tuple((v, p) for v in VERBS for p in PREPOSITIONS
                    if nonsense(subject, v, p, place) is None)
    return actions, (None, *adjectives_for(subject)), (None, *adjectives_for(place))


def _random_pair_of(rng, subject, place) -> Pair:
    actions, subject_adjectives, place_adjectives = _sentences_of(subject, place)
    verb, preposition = actions[rng.integers(len(actions))]
    return build_sentence(
        subject, verb, preposition, place,
        subject_adjective=subject_adjectives[rng.integers(len(subject_adjectives))],
        place_adjective=place_adjectives[rng.integers(len(place_adjectives))])


def make_corpus(n_train: int = 3000, n_valid: int = 200, n_heldout: int = 200,
                seed: int = 0, heldout_fraction: float = 0.15) -> Corpus:
    """Deterministic train / valid / held-out splits of the grammar, no sentence repeated.

    A fraction ``heldout_fraction`` of the (subject, place) combinations is set aside:
    no training or validation sentence has one, every held-out sentence has one. Each
    subject and each place still occurs in training with other partners.

    >>> corpus = make_corpus(n_train=50, n_valid=5, n_heldout=5)
    >>> len(corpus.train), len(corpus.valid), len(corpus.heldout)
    (50, 5, 5)
    >>> corpus.train == make_corpus(n_train=50, n_valid=5, n_heldout=5).train
    True
    """
    why = t("err_why_toy_sentences")
    n_train = validate.integer(n_train, "n_train", 1, 100_000, why=why)
    n_valid = validate.integer(n_valid, "n_valid", 1, 100_000, why=why)
    n_heldout = validate.integer(n_heldout, "n_heldout", 1, 100_000, why=why)
    heldout_fraction = validate.real_number(heldout_fraction, "heldout_fraction", 0.0, 0.5,
                                            low_open=True)
    # every (subject, place) that some sentence of the grammar can have
    combos = [c for c in itertools.product(SUBJECTS, PLACES) if _sentences_of(*c)[0]]
    n_held = round(heldout_fraction * len(combos))
    if heldout_fraction == 0.5 or n_held == 0:
        raise ValueError(t("err_heldout_fraction", n=len(combos), got=heldout_fraction))
    rng = np.random.default_rng(validate.seed(seed))
    order = rng.permutation(len(combos))
    held = {combos[i] for i in order[:n_held]}
    seen = [c for c in combos if c not in held]
    held_list = sorted(held)
    for name, n, pool in (("n_train + n_valid", n_train + n_valid, seen),
                          ("n_heldout", n_heldout, held_list)):
        room = sum(math.prod(map(len, _sentences_of(*c))) for c in pool)
        if n > room:
            raise ValueError(t("err_corpus_room", name=name, room=room, got=n))

    used: set = set()

    def draw(n, pool) -> list:
        out = []
        while len(out) < n:
            pair = _random_pair_of(rng, *pool[rng.integers(len(pool))])
            if pair.english not in used:
                used.add(pair.english)
                out.append(pair)
        return out

    train = draw(n_train, seen)
    valid = draw(n_valid, seen)
    heldout = draw(n_heldout, held_list)
    return Corpus(train, valid, heldout, frozenset(held))
