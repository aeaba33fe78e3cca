"""The contract of every exercise check, the quiz, and the Korean particles of the feedback.

Every check (the ones the lessons' exercise cells call, found by glob, and every other
``check_*`` in ``qkv_helpers.classroom.checks``) takes any object the learner may type and answers
with a Feedback in the lesson's language, naming the learner's variable; it never raises.
"""

from __future__ import annotations

import inspect
import re
import string
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_checks_lazy import all_exercises, lesson_run  # noqa: E402

import qkv_helpers as qk
from qkv_helpers import checks, lang
from qkv_helpers.classroom.checks import Feedback
from qkv_helpers.classroom.quiz import QUESTIONS, grade, quiz_widget


@pytest.fixture(autouse=True)
def english():
    lang.set_language("en")
    yield
    lang.set_language("en")


# --- arbitrary learner answers --------------------------------------------------------------


class Evil:
    """An object whose every protocol raises."""

    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array here")

    def __len__(self):
        raise RuntimeError("no length")

    def __iter__(self):
        raise RuntimeError("no iteration")

    def __float__(self):
        raise RuntimeError("no float")

    def __eq__(self, other):
        raise RuntimeError("no comparison")

    __hash__ = object.__hash__


def _raises(x):
    raise ZeroDivisionError("the learner's bug")


def _ellipsis(x):
    return ...


def _wrong_type(x):
    return "weights"


def _ragged(x):
    return [[1.0, 2.0], [3.0]]


def _complex(x):
    return np.asarray(x) + 0j


def _nan(x):
    return np.full(np.shape(x), np.nan)


def _recurse(x):
    return _recurse(x)


SCALARS = st.one_of(
    st.none(), st.just(...), st.booleans(), st.integers(),
    st.integers(min_value=10**300, max_value=10**400), st.just(10**400), st.just(-10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.complex_numbers(),
    st.text(max_size=6), st.binary(max_size=4), st.sampled_from(["1.5", "57", "(5, 7)", "nan"]),
    st.from_type(type).flatmap(st.from_type).filter(lambda v: not callable(v)),
)
SHAPES = st.sampled_from([(), (2,), (4,), (7,), (2, 5), (4, 4), (5, 4), (5, 5), (7, 4),
                          (7, 7), (12, 4), (2, 3), (1, 3), (2, 7, 4)])
ARRAYS = st.one_of(
    hnp.arrays(st.sampled_from([np.float64, np.float32, np.int64, np.bool_, np.complex128]),
               SHAPES),
    hnp.arrays(np.float64, SHAPES, elements=st.floats(-1e3, 1e3)),
    hnp.arrays(np.object_, st.sampled_from([(2,), (2, 2)]),
               elements=st.one_of(st.integers(), st.text(max_size=2), st.none())),
)
NESTED = st.recursive(SCALARS | st.floats(-10, 10), lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.tuples(inner, inner), st.lists(st.lists(inner, max_size=4),
                                                                  max_size=4)),
    max_leaves=24)
CALLABLES = st.one_of(
    st.sampled_from([_raises, _ellipsis, _wrong_type, _ragged, _complex, _nan, _recurse,
                     lambda x: x, lambda x: np.exp(x), lambda x: None, print, len, np.exp]),
    st.functions(like=lambda x: None, returns=st.one_of(SCALARS, ARRAYS, NESTED)),
)
ANSWERS = st.one_of(SCALARS, ARRAYS, NESTED, CALLABLES, st.just(Evil()),
                    st.just([Evil(), 1.0]), st.dictionaries(st.text(max_size=2), SCALARS,
                                                            max_size=3),
                    st.sets(st.integers(), max_size=4), st.builds(range, st.integers(0, 9)))

CONTRACT = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


def _assert_feedback(feedback, name: str, where) -> None:
    assert isinstance(feedback, Feedback), (where, feedback)
    assert feedback.ok in (True, False, None)
    assert isinstance(feedback.message, str) and feedback.message, where
    repr(feedback), feedback._repr_html_()
    if feedback.ok is False:
        assert name in feedback.message, (where, "names the variable", feedback.message)


# --- every exercise of every lesson (by glob) --------------------------------------------


@pytest.mark.parametrize("stem,number", all_exercises())
def test_every_exercise_check_keeps_the_contract(stem, number):
    exercise, namespace = lesson_run(stem)[number]

    @CONTRACT
    @given(answer=ANSWERS, language=st.sampled_from(["en", "ko"]))
    def contract(answer, language):
        lang.set_language(language)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            feedback = exercise.run(namespace, answer)
        _assert_feedback(feedback, exercise.name, (exercise, answer))

    contract()


# --- every check_* in the module, also those no lesson uses now ---------------------------


def _registry():
    ex = qk.running_example()
    tr = qk.translation_example()
    enc = qk.encoder_decoder.encoder_example()
    x_new = np.linspace(-1.0, 1.0, 8)
    kv = dict(layers=2, kv_heads=4, head_dim=4, tokens=10, batch=3, bytes_per_value=2)
    return {
        "check_array": (lambda a: checks.check_array(a, np.ones((2, 3)), "my_a"), "my_a"),
        "check_value": (lambda a: checks.check_value(a, 2.5, "my_v"), "my_v"),
        "check_weights": (lambda a: checks.check_weights(a, qk.softmax(ex.q @ ex.k.T),
                                                         "my_w"), "my_w"),
        "check_q_shape": (lambda a: checks.check_q_shape(a, ex, 12), "my_shape"),
        "check_new_key": (lambda a: checks.check_new_key(a, ex, x_new), "my_key"),
        "check_new_scores": (lambda a: checks.check_new_scores(a, ex, x_new), "my_scores"),
        "check_reordered_scores": (lambda a: checks.check_reordered_scores(
            a, ex, [1, 0, 2, 3, 4, 5, 6]), "my_scores"),
        "check_angle": (lambda a: checks.check_angle(a, ex, "on", "the"), "my_angle"),
        "check_score_spread": (lambda a: checks.check_score_spread(a, 64), "my_std"),
        "check_stable_softmax": (lambda a: checks.check_stable_softmax(a), "my_softmax"),
        "check_stable_log_softmax": (lambda a: checks.check_stable_log_softmax(a),
                                     "my_log_softmax"),
        "check_prefix_context": (lambda a: checks.check_prefix_context(a, ex, "sat", 4),
                                 "my_context"),
        "check_prefix_head": (lambda a: checks.check_prefix_head(a, enc.mha, enc.x, 0, 5),
                              "my_head"),
        "check_changed_rows": (lambda a: checks.check_changed_rows(a, ex, 2), "my_rows"),
        "check_cross_shape": (lambda a: checks.check_cross_shape(a, tr, 3, 11), "my_shape"),
        "check_masked_output": (lambda a: checks.check_masked_output(
            a, ex.x, ex.w_q, ex.w_k, ex.w_v), "my_output"),
        "check_head_output": (lambda a: checks.check_head_output(a, enc.mha, enc.x, 1),
                              "my_head"),
        "check_causal_mask": (lambda a: checks.check_causal_mask(a, 3, 6), "my_mask"),
        "check_cross_weights_shape": (lambda a: checks.check_cross_weights_shape(a, tr),
                                      "my_shape"),
        "check_kv_cache_bytes": (lambda a: checks.check_kv_cache_bytes(a, **kv, query_heads=8),
                                 "my_bytes"),
        "check_max_batch": (lambda a: checks.check_max_batch(
            a, memory_gib=1, layers=2, kv_heads=4, head_dim=64, tokens=1000,
            bytes_per_value=2), "my_batch"),
    }


REGISTRY = _registry()
CHECK_NAMES = sorted(name for name, value in vars(checks).items()
                     if name.startswith("check_") and inspect.isfunction(value))


def _checks_used_by_lessons() -> set[str]:
    from test_checks_lazy import ROOT, STEMS

    used = set()
    for stem in STEMS:
        text = (ROOT / "notebooks" / "src" / f"{stem}.py").read_text(encoding="utf-8")
        used.update(re.findall(r"checks\.(check_\w+)\(", text))
    return used


def test_every_check_is_under_the_contract():
    """Each check_* is tried here (REGISTRY) or through a lesson's exercise cell (above)."""
    uncovered = set(CHECK_NAMES) - set(REGISTRY) - _checks_used_by_lessons()
    assert not uncovered, f"add these to REGISTRY or use them in an exercise: {uncovered}"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_check_keeps_the_contract(name):
    call, variable = REGISTRY[name]

    @CONTRACT
    @given(answer=ANSWERS, language=st.sampled_from(["en", "ko"]))
    def contract(answer, language):
        lang.set_language(language)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            feedback = call(answer)
        _assert_feedback(feedback, variable, (name, answer))

    contract()


# --- the right answer in every form; numbers as text, complex, shapes as floats refused ---


def _solutions():
    ex = qk.running_example()
    enc = qk.encoder_decoder.encoder_example()
    x_new = np.linspace(-1.0, 1.0, 8)
    p = enc.mha.project(enc.x[:5])
    return {
        "check_array": np.ones((2, 3)),
        "check_weights": qk.softmax(ex.q @ ex.k.T),
        "check_new_key": x_new @ ex.w_k,
        "check_new_scores": ex.k @ (x_new @ ex.w_q),
        "check_reordered_scores": (lambda x: (x @ ex.w_q) @ (x @ ex.w_k).T)(
            ex.x[[1, 0, 2, 3, 4, 5, 6]]),
        "check_prefix_context": qk.scaled_dot_product_attention(
            ex.q[:4], ex.k[:4], ex.v[:4]).output[2],
        "check_prefix_head": qk.scaled_dot_product_attention(p.q[0], p.k[0], p.v[0]).output,
        "check_masked_output": qk.scaled_dot_product_attention(
            ex.q, ex.k, ex.v, mask=qk.causal_mask(7)).output,
        "check_head_output": qk.scaled_dot_product_attention(
            *(a[1] for a in enc.mha.project(enc.x))).output,
        "check_causal_mask": qk.causal_mask(3, 6),
    }


SOLUTIONS = _solutions()


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_right_array_passes_as_array_list_and_float32_and_fails_as_text_or_complex(name):
    call, variable = REGISTRY[name]
    right = SOLUTIONS[name]
    assert call(right).ok is True
    assert call(right.tolist()).ok is True, "a nested list"
    if right.dtype != bool:
        assert call(right.astype(np.float32)).ok is (
            True if np.abs(right).max() < 1e2 else call(right.astype(np.float32)).ok)
    as_text = call(right.astype(str))
    assert as_text.ok is False and variable in as_text.message
    as_complex = call(right + 0j)
    assert as_complex.ok is False and "complex" in as_complex.message
    nan = right.astype(float).copy()
    nan.flat[0] = np.nan
    assert call(nan).ok is False
    if right.ndim == 2:
        ragged = [list(row) for row in right]
        ragged[-1] = ragged[-1][:-1]
        assert "ragged" in call(ragged).message


@pytest.mark.parametrize("answer,ok", [
    ((12, 4), True), ([12, 4], True), (np.array([12, 4]), True),
    ((np.int64(12), np.int32(4)), True), ((12.0, 4.0), False), ((5.9, 7.2), False),
    ("124", False), ("(12, 4)", False), ((12, 4, 1), False), ((True, 4), False),
    ((10**400, 4), False), ((7, 4), False), ((4, 12), False), (12, False),
])
def test_shape_answers(answer, ok):
    ex = qk.running_example()
    assert checks.check_q_shape(answer, ex, n_tokens=12).ok is ok


def test_cross_weights_shape_refuses_floats_and_strings():
    tr = qk.translation_example()
    assert checks.check_cross_weights_shape((5.9, 7.2), tr).ok is False
    assert checks.check_cross_weights_shape("57", tr).ok is False
    assert checks.check_cross_weights_shape((5, 7), tr).ok is True


@pytest.mark.parametrize("answer,ok", [
    (2 * 2 * 4 * 4 * 10 * 3 * 2, True), (np.int64(3840), True), (3840.0, True),
    (np.float32(3840), True), (np.array(3840), True), ("3840", False), (3840 + 0j, False),
    (True, False), ([3840], False), (10**400, False), (float("nan"), False),
    (float("inf"), False), (3841, False), (1920, False),
])
def test_number_answers(answer, ok):
    call, _ = REGISTRY["check_kv_cache_bytes"]
    assert call(answer).ok is ok


def test_ragged_lists_and_huge_ints_get_feedback_not_errors():
    ex = qk.running_example()
    assert "ragged" in checks.check_array([[1, 2], [3]], ex.k, "K").message
    assert checks.check_array([[10**400] * 4] * 7, ex.k, "K").ok is False
    assert checks.check_value(10**400, 2.0, "my_v").ok is False


# --- the softmax checks ---------------------------------------------------------------------


def _shifted(shift):
    def softmax(x):
        e = np.exp(x - shift(x))
        return e / e.sum(axis=-1, keepdims=True)
    return softmax


@pytest.mark.parametrize("shift,which", [
    (lambda x: 0.0, "1000"),                                         # no shift
    (lambda x: x.max(), "998"),                                      # the global maximum
    (lambda x: x.min(axis=-1, keepdims=True), "-1000"),              # the row minimum
    (lambda x: x.mean(axis=-1, keepdims=True), ""),                  # the row mean
    (lambda x: x.min(), ""),                                         # the global minimum
    (lambda x: np.median(x, axis=-1, keepdims=True), ""),            # the row median
])
def test_stable_softmax_refuses_every_wrong_shift_and_names_the_input(shift, which):
    feedback = checks.check_stable_softmax(_shifted(shift))
    assert feedback.ok is False
    assert "On [[" in feedback.message and which in feedback.message


def test_stable_softmax_accepts_the_row_max_shift_and_refuses_the_package():
    assert checks.check_stable_softmax(_shifted(
        lambda x: x.max(axis=-1, keepdims=True))).ok is True
    assert checks.check_stable_softmax(qk.softmax).ok is False
    assert checks.check_stable_softmax(qk.float_limits.naive_softmax).ok is False
    assert "ZeroDivisionError" in checks.check_stable_softmax(_raises).message
    assert checks.check_stable_softmax(_ellipsis).ok is None
    assert checks.check_stable_softmax(_recurse).ok is False


def test_stable_log_softmax_refuses_log_of_softmax():
    def mine(x):
        s = x - x.max(axis=-1, keepdims=True)
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))

    assert checks.check_stable_log_softmax(mine).ok is True
    assert checks.check_stable_log_softmax(lambda x: np.log(qk.softmax(x))).ok is False
    assert "−∞" in checks.check_stable_log_softmax(
        lambda x: np.log(_shifted(lambda y: y.max(axis=-1, keepdims=True))(x))).message
    assert checks.check_stable_log_softmax(lambda x: qk.softmax(x)).ok is False


# --- solution label -------------------------------------------------------------------------


@pytest.mark.parametrize("language,label", [("en", "Solution check"), ("ko", "풀이 확인")])
def test_solution_feedback_is_labelled(language, label):
    lang.set_language(language)
    feedback = checks.check_value(3, 3, "my_n").as_solution()
    assert repr(feedback).startswith(f"✅ {label}: ")
    assert label in feedback._repr_html_()
    assert feedback.ok is True and bool(feedback)


# --- quiz -----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["ko", "en"])
def test_quiz_right_choice_is_rarely_the_longest_or_the_shortest(language):
    lang.set_language(language)
    longest = shortest = 0
    for question in QUESTIONS:
        texts = {i: lang.t(f"{question.key}_c{i}") for i in question.order}
        right = len(texts[question.answer])
        others = [len(text) for i, text in texts.items() if i != question.answer]
        longest += right >= max(others)
        shortest += right <= min(others)
    assert longest <= 3, f"{language}: the right choice is the longest in {longest} of 10"
    assert shortest <= 3, f"{language}: the right choice is the shortest in {shortest} of 10"


@pytest.mark.parametrize("language", ["ko", "en"])
def test_quiz_feedback_has_one_symbol_hint_first_explanation_later(language):
    lang.set_language(language)
    for number, question in enumerate(QUESTIONS, start=1):
        wrong = next(i for i in question.order if i != question.answer)
        first = grade(number, wrong)
        assert first.ok is False and question.hint in first.message
        assert question.why not in first.message
        second = grade(number, wrong, wrong_before=1)
        assert question.why in second.message
        right = grade(number, question.answer)
        assert right.ok is True and question.why in right.message
        for feedback in (first, second, right):
            shown = repr(feedback)
            assert shown.count("✅") + shown.count("❌") == 1, shown
            assert re.search(r"(lesson|Lesson|강)", question.hint), question.hint


@pytest.mark.parametrize("choice", [True, False, -1, 4, 1.0, "1", None])
def test_grade_refuses_what_is_not_an_option(choice):
    if choice is None:
        assert grade(1, None).ok is None
        return
    with pytest.raises(TypeError, match="choice must be one of the options"):
        grade(7, choice)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_quiz_widget_scores_first_tries_only(language):
    qk.setup(lang=language)
    panel = quiz_widget()
    q7 = QUESTIONS[6]
    wrong = [i for i in q7.order if i != q7.answer]
    panel.controls["q07"].value = wrong[0]
    assert panel.state["feedback"]["q07"].ok is False
    assert q7.hint in panel.state["feedback"]["q07"].message
    assert q7.why not in panel.state["feedback"]["q07"].message
    panel.controls["q07"].value = wrong[1]
    assert q7.why in panel.state["feedback"]["q07"].message
    panel.controls["q07"].value = q7.answer
    assert panel.state["feedback"]["q07"].ok is True
    assert panel.state["right"] == 0 and panel.state["answered"] == 1
    panel.controls["q01"].value = QUESTIONS[0].answer
    assert panel.state["right"] == 1 and panel.state["answered"] == 2
    html_note = panel.children[6].children[2].value
    assert html_note.count("✅") + html_note.count("❌") == 1
    lang.set_language("en")


def test_quiz_states_the_kv_cache_memory_precisely():
    lang.set_language("en")
    why = QUESTIONS[6].why
    assert "peak" in why and "trades memory for compute" in why
    assert "layers · kv_heads · head_dim · tokens · batch" in why
    everything = " ".join(v for k, v in lang.STRINGS["en"].items() if k.startswith("quiz_"))
    assert "does not save memory" not in everything and "does not reduce memory" not in everything


# --- Korean particles -----------------------------------------------------------------------

# Particles whose form depends on the sound before them: (after a final consonant, after a vowel).
PAIRS = [("이에요", "예요"), ("이어야", "여야"), ("으로", "로"), ("이라", "라"), ("이랑", "랑"),
         ("이나", "나"), ("이야", "야"), ("은", "는"), ("이", "가"), ("을", "를"), ("과", "와")]
DIGITS = {"0": "영", "1": "일", "2": "이", "3": "삼", "4": "사", "5": "오", "6": "육",
          "7": "칠", "8": "팔", "9": "구"}
# the only letters read with a final consonant
LETTERS = {"l": "엘", "m": "엠", "n": "엔", "r": "알"}


def final_sound(word: str) -> str:
    """"consonant", "rieul" (ㄹ) or "vowel": how ``word`` ends when read in Korean."""
    spoken = [c for c in word if c.isalnum() or "가" <= c <= "힣"]
    if not spoken:
        return "vowel"
    last = spoken[-1]
    if last in DIGITS:
        last = DIGITS[last]
    elif last.lower() in string.ascii_lowercase:
        last = LETTERS.get(last.lower(), "이")
    if "가" <= last <= "힣":
        batchim = (ord(last) - 0xAC00) % 28
        return "vowel" if batchim == 0 else "rieul" if batchim == 8 else "consonant"
    return "vowel"


def particle_problem(text_after: str, value: str) -> str | None:
    """The wrong particle right after ``value`` (as written in ``text_after``), or None."""
    sound = final_sound(value)
    for after_consonant, after_vowel in PAIRS:
        for used in (after_consonant, after_vowel):
            if text_after.startswith(used):
                if after_consonant == "으로":
                    right = "로" if sound in ("vowel", "rieul") else "으로"
                else:
                    right = after_vowel if sound == "vowel" else after_consonant
                return None if used == right else f"{value}{used} (should be {value}{right})"
    return None


def test_the_particle_rule_itself():
    assert particle_problem("은 틀려요", "my_head") == "my_head은 (should be my_head는)"
    assert particle_problem("는", "2.91") == "2.91는 (should be 2.91은)"
    assert particle_problem("가", "0.47") == "0.47가 (should be 0.47이)"
    assert particle_problem("이에요", "(7, 5)") == "(7, 5)이에요 (should be (7, 5)예요)"
    assert particle_problem("으로", "7") and particle_problem("로", "7") is None
    assert particle_problem("를", "my_mask") is None and particle_problem("를", "K") is None
    assert particle_problem("을", "my_mask") == "my_mask을 (should be my_mask를)"
    assert particle_problem("은", "my_model") is None  # l: 엘
    assert particle_problem(" 값이", "my_head") is None


NAMES = ["my_head", "my_shape", "K", "my_mask", "scores", "my_softmax", "값", "가중치"]
NUMBERS = ["2.91", "0.47", "(7, 5)", "3", "10", "16", "(12, 4)", "1,920", "[0, 2]"]


def test_every_korean_feedback_template_takes_the_right_particle():
    problems = []
    for key, template in lang.STRINGS["ko"].items():
        if not key.startswith(("check_", "quiz_")):
            continue
        pieces = re.split(r"\{(\w+)(?:![rsa])?(?::[^}]*)?\}", template)
        for i in range(1, len(pieces), 2):
            after = pieces[i + 1]
            for value in NAMES + NUMBERS:
                problem = particle_problem(after, value)
                if problem:
                    problems.append(f"{key}: {{{pieces[i]}}} → {problem}")
    assert not problems, "\n".join(sorted(set(problems))[:20])


def test_korean_feedback_is_rendered_with_real_names_and_numbers():
    lang.set_language("ko")
    ex = qk.running_example()
    shown = checks.check_q_shape((7, 5), ex, n_tokens=12).message
    assert "my_shape" in shown and "(7, 5)" in shown
    assert particle_problem(shown.split("(7, 5)", 1)[1], "(7, 5)") is None
    lang.set_language("en")
