"""The last silently wrong results of issue 26, each with the input that showed it.

Each test failed before its fix: a checker that said "right" (or "not answered yet") to a
wrong answer, a function that returned a wrong or meaningless result without complaint, or
an error in numpy's or Python's words instead of ours naming the argument. tools/
bad_inputs_lessons.py has the same kinds for every entry point it covers.
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import checks, lang, plots
from qkv_helpers.kv_cache import arithmetic as km
from qkv_helpers.measure.kv_cache_experiments import to_ids

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def english():
    lang.set_language("en")


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(x):
    s = x - x.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


# --- checkers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("check, right_fn", [(checks.check_stable_softmax, _softmax),
                                             (checks.check_stable_log_softmax, _log_softmax)])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_function_right_on_short_rows_but_returning_nothing_on_long_ones_is_wrong(
        check, right_fn, language):
    lang.set_language(language)

    def short_rows_only(x):
        x = np.asarray(x, dtype=float)
        return right_fn(x) if x.shape[-1] <= 8 else None

    assert check(right_fn).ok is True
    feedback = check(short_rows_only)
    assert feedback.ok is False, feedback.message
    assert "None" in feedback.message and "np.linspace(-50, 50, 600)" in feedback.message
    assert check(lambda x: ...).ok is None  # nothing written yet: still "not answered"
    # a function without return (None) is told so, not "not answered" (issue 35)
    assert check(lambda x: None).key == "check_l04_returned_nothing"


@pytest.mark.parametrize("check, right_fn", [(checks.check_stable_softmax, _softmax),
                                             (checks.check_stable_log_softmax, _log_softmax)])
def test_a_function_that_only_works_on_a_few_numbers_is_wrong(check, right_fn):
    def only_six(x):
        x = np.asarray(x, dtype=float)
        if x.size > 6:
            return np.zeros_like(x)  # wrong for anything longer
        return right_fn(x)

    feedback = check(only_six)
    assert feedback.ok is False and "np.linspace" in feedback.message, feedback.message


@pytest.mark.parametrize("strings", [lambda r: [str(a) for a in r],
                                     lambda r: np.array([str(a) for a in r]),
                                     lambda r: [[str(a)] for a in r]])
def test_check_merged_halves_refuses_the_right_numbers_written_as_text(strings):
    s, v = np.array([0.0, 1.0, 3.0, 2.0]), np.arange(8.0).reshape(4, 2)
    right = qk.softmax(s) @ v
    assert checks.check_merged_halves(right, s, v).ok is True
    feedback = checks.check_merged_halves(strings(right), s, v)
    assert feedback.ok is False and "my_output" in feedback.message, feedback.message
    assert "text" in feedback.message


# --- plots ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ax", ["left", 1, [None], "figure"])
def test_plots_refuse_an_ax_that_is_not_an_axes(ax):
    if ax == "figure":
        ax = plt.figure()
    weights = np.array([[0.9, 0.1], [0.3, 0.7]])
    with pytest.raises(TypeError, match=r"^ax must be a matplotlib Axes .* got "):
        plots.plot_attention_heatmap(weights, ["a", "b"], ax=ax)
    with pytest.raises(TypeError, match=r"^ax must be a matplotlib Axes"):
        plots.plot_vectors_2d([1.0, 0.0], [0.0, 1.0], ax=ax)
    _, good = plt.subplots()
    assert plots.plot_attention_heatmap(weights, ["a", "b"], ax=good) is good


@pytest.mark.parametrize("a, b, match", [
    ([1e308, 0.0], [0.0, 1e308], r"a holds numbers too large to draw"),
    ([1e-200, 0.0], [1e-200, 1e-200], r"a and b are too short to draw"),
    ([5e-324, 0.0], [0.0, 5e-324], r"a and b are too short to draw"),
])
def test_plot_vectors_2d_refuses_vectors_it_cannot_draw(a, b, match):
    with pytest.raises(ValueError, match=match):
        plots.plot_vectors_2d(a, b)
    ax = plots.plot_vectors_2d([1e-50, 0.0], [1e-50, 1e-50])  # small but drawable
    assert "45" in ax.get_title()
    assert np.isfinite(ax.get_xlim()).all() and ax.get_xlim()[1] > 0


# --- attention ----------------------------------------------------------------------------------


def test_float16_scores_that_fit_float32_are_computed_and_a_huge_scale_is_named():
    """float16 scores are formed in float32 (as FlashAttention): scale = 1e5 on small q and
    k, or q·kᵀ = 360,000 (past float16's 65,504), give the right weights, not an error.
    Scores past float32 are still refused, naming scale when q·kᵀ itself fits."""
    q = k = v = np.ones((2, 4), np.float16)
    out = qk.scaled_dot_product_attention(q, k, v, scale=1e5)
    assert out.weights.dtype == out.output.dtype == np.float16
    np.testing.assert_array_equal(out.weights, 0.5)
    big = np.full((2, 4), 300.0, np.float16)
    ramp = np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]], np.float16)
    got = qk.scaled_dot_product_attention(big, big, ramp)
    want = qk.scaled_dot_product_attention(*(a.astype(np.float64) for a in (big, big, ramp)))
    np.testing.assert_allclose(got.output.astype(np.float64), want.output, rtol=1e-3)
    with pytest.raises(ValueError, match=r"^scale = 1e\+38 makes the scores overflow dtype "
                                         r"float32 .* q·kᵀ itself is at most 4: use a "
                                         r"smaller scale .* or float64 inputs"):
        qk.scaled_dot_product_attention(q, k, v, scale=1e38)
    q32 = np.ones((2, 4), np.float32)
    with pytest.raises(ValueError, match=r"^scale = 1e\+38 makes the scores overflow dtype "
                                         r"float32"):
        qk.scaled_dot_product_attention(q32, q32, q32, scale=1e38)
    q64 = np.ones((2, 4))
    with pytest.raises(ValueError, match=r"overflow dtype float64 .* at most 4: use a smaller "
                                         r"scale \(the default is 1/√d_k\)$"):
        qk.scaled_dot_product_attention(q64, q64, q64, scale=1e308)


@pytest.mark.parametrize("shape", [(5, 6), (5, 10), (6,), (2, 5, 7)])
def test_split_heads_refuses_the_wrong_width(shape):
    mha = qk.MultiHeadAttention(8, 2)
    with pytest.raises(ValueError, match=r"^x must have shape \(\.\.\., tokens, d_model\) = "
                                         r"\(\.\.\., tokens, 8\) to split into 2 heads of 4, got"):
        mha.split_heads(np.ones(shape))
    x = np.arange(40.0).reshape(5, 8)
    assert np.array_equal(mha.merge_heads(mha.split_heads(x)), x)


@pytest.mark.parametrize("shape", [(3, 5, 4), (2, 5, 3), (5, 4)])
def test_merge_heads_refuses_the_wrong_heads(shape):
    mha = qk.MultiHeadAttention(8, 2)
    with pytest.raises(ValueError, match=r"^x must have shape \(\.\.\., n_heads, tokens, "
                                         r"head_dim\) = \(\.\.\., 2, tokens, 4\), got"):
        mha.merge_heads(np.ones(shape))


# --- lesson 09 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, [], ["The", "cat"], 3, b"The cat"])
def test_to_ids_wants_a_sentence(text):
    with pytest.raises(TypeError, match=r"^text must be a sentence \(a string of words\)"):
        to_ids(text)
    assert to_ids("The cat sat") == [0, 1, 2]


@pytest.mark.parametrize("steps, flops, name", [
    ([10, 10, 20], [0, 0, 0], "flops"),
    ([0, 0, 0], [1e6, 5e6, 2e7], "steps"),
    ([0, 0], [0.0, 0.0], "steps"),
])
def test_fit_step_time_refuses_a_column_of_zeros(steps, flops, name):
    seconds = [0.0011, 0.0015, 0.004][: len(steps)]
    with pytest.raises(ValueError, match=rf"^{name} are all 0: the fit cannot measure"):
        km.fit_step_time(steps, flops, seconds)
    fit = km.fit_step_time([10, 10, 20], [1e6, 5e6, 2e7], [0.0011, 0.0015, 0.004])
    assert round(fit.overhead * 1e6) == 100 and round(fit.seconds_per_flop * 1e12) == 100


# --- masked arrays, whose mask numpy ignores ----------------------------------------------------


def _masked(a: np.ndarray) -> np.ma.MaskedArray:
    hidden = np.zeros(a.shape, bool)
    hidden.flat[0] = True
    return np.ma.masked_array(a, mask=hidden)


def _f32(*shape):
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def _paged_append(k, v):
    cache = qk.PagedKVCache(2, 4, block_size=2, n_blocks=4)
    cache.append(cache.new_sequence(), k, v)


_MHA = qk.MultiHeadAttention(8, 2, seed=0)
_QKV = dict(q=_f32(3, 4), k=_f32(5, 4), v=_f32(5, 2), mask=np.ones((3, 5), bool))
_ONE_TOKEN = dict(k=_f32(2, 1, 4), v=_f32(2, 1, 4))
ENTRY_POINTS = {
    "softmax": (qk.softmax, dict(x=_f32(3, 4), out=_f32(3, 4))),
    "scaled_dot_product_attention": (qk.scaled_dot_product_attention, _QKV),
    "tiled_attention": (qk.tiled_attention, _QKV),
    "grouped_query_attention": (qk.grouped_query_attention,
                                dict(q=_f32(4, 3, 4), k=_f32(2, 5, 4), v=_f32(2, 5, 2))),
    "blocked_attention": (qk.fast.blocked_attention,
                          dict(q=_f32(3, 4), k=_f32(5, 4), v=_f32(5, 2))),
    "one_query_attention": (qk.fast.one_query_attention,
                            dict(q=_f32(1, 4), k=_f32(5, 4), v=_f32(5, 2))),
    "decoder_attention": (lambda q, k, v: qk.fast.decoder_attention(q, k, v, causal=True),
                          dict(q=_f32(1, 4), k=_f32(5, 4), v=_f32(5, 2))),
    "weighted_sum_steps": (qk.weighted_sum.weighted_sum_steps,
                           dict(weights=np.full(3, 1 / 3), v=_f32(3, 2))),
    "dot_and_angle": (qk.similarity.dot_and_angle, dict(a=_f32(3), b=_f32(3))),
    "apply_rope": (qk.apply_rope, dict(x=_f32(3, 4), positions=np.arange(3.0))),
    "layer_norm": (qk.layer_norm.layer_norm, dict(x=_f32(3, 4))),
    "MultiHeadAttention": (lambda x_q: _MHA(x_q), dict(x_q=_f32(3, 8))),
    "KVCache.append": (lambda k, v: qk.KVCache(2, 4, capacity=4).append(k, v), _ONE_TOKEN),
    "PagedKVCache.append": (_paged_append, _ONE_TOKEN),
}


@pytest.mark.parametrize("entry, argument", [(entry, argument)
                                             for entry, (_, args) in ENTRY_POINTS.items()
                                             for argument in args])
def test_a_masked_array_is_refused_naming_the_argument(entry, argument):
    """numpy copies and multiplies a masked array's hidden entries as if there were no mask:
    KVCache.append kept them (its keys then differed from what the learner masked)."""
    call, args = ENTRY_POINTS[entry]
    call(**args)  # the plain arrays are fine
    with pytest.raises(TypeError, match=rf"^{argument} is a masked array, whose (own )?mask "
                                        r"numpy would ignore"):
        call(**{**args, argument: _masked(args[argument])})


# --- issue 34, item 6: the last silent results --------------------------------------------


def test_plot_masked_scores_refuses_more_queries_than_keys():
    """The rows are labelled with the last n_q of the keys' labels: with more queries than
    keys that slice was shorter than the rows (labels shifted and missing, silently)."""
    from qkv_helpers import plots

    with pytest.raises(ValueError, match=r"^scores must have no more rows \(queries\) than "
                                         r"columns \(keys\).*got shape \(5, 3\)"):
        plots.plot_masked_scores(np.ones((5, 3)), np.ones((5, 3), bool), ["a", "b", "c"])
    ax = plots.plot_masked_scores(np.ones((2, 3)), qk.causal_mask(2, 3), ["a", "b", "c"])
    assert [label.get_text() for label in ax.get_yticklabels()] == ["b", "c"]


def test_plot_softmax_curves_names_span_when_its_axis_cannot_be_drawn():
    """span = 1e308 used to fail inside softmax, naming its internal argument x."""
    from qkv_helpers import plots

    with pytest.raises(ValueError, match=r"^span must be <= 1e\+300, got 1e\+308"):
        plots.plot_softmax_curves(span=1e308)
    ax = plots.plot_softmax_curves(span=1e300)
    ax.figure.canvas.draw()  # matplotlib can draw it, without a warning
    assert ax.get_xlim()[1] >= 1e300


def test_object_arrays_of_real_numbers_are_read_and_others_refused():
    """_validate.py's docstring said object arrays are refused; they are read when every
    entry is a real number (as a list of them would be), and the docstring now says so."""
    from fractions import Fraction

    from qkv_helpers import _validate

    assert "object arrays with an entry that is not a real" in " ".join(
        _validate.__doc__.split())
    x = np.array([1, 2.5, Fraction(1, 2)], dtype=object)
    np.testing.assert_array_equal(qk.softmax(x), qk.softmax([1.0, 2.5, 0.5]))
    for bad in (None, "a", [1], True):
        with pytest.raises(TypeError, match=r"x must hold real numbers.*dtype object"):
            qk.softmax(np.array([1.0, bad], dtype=object))


# --- issue 34: writing into a cache's read-only view -----------------------------------------
# Every view a cache hands out, as a learner reaches it, and every kind of write into it.
# KVCache's views refuse a write in our words (naming the cache and what to do); numpy's own
# "assignment destination is read-only" stays for the writes listed in NUMPYS_OWN_WRITES.


def _filled_cache():
    cache = qk.KVCache(n_heads=2, head_dim=3, capacity=4)  # grows at the third append
    for value in (1.0, 2.0, 3.0):
        cache.append(np.full((2, 2, 3), value, np.float32), np.full((2, 2, 3), -value, np.float32))
    return cache


def _layer_of_a_decoding():
    """A cache the decoder filled: layer 1 of TinyTransformer.start's state."""
    from qkv_helpers.measure import kv_cache_experiments

    model = kv_cache_experiments.lesson_model()
    return model.start(to_ids("The cat sat"), capacity=8).caches[1]


CACHES = {"filled by hand": _filled_cache, "a decoder's layer": _layer_of_a_decoding}
VIEWS = {  # (the view, which part of the cache it shows)
    "keys": (lambda c: c.keys, "keys"),
    "values": (lambda c: c.values, "values"),
    "one head's keys": (lambda c: c.keys[0], "keys"),
    "the last token's values": (lambda c: c.values[:, -1], "values"),
    "keys transposed": (lambda c: c.keys.swapaxes(-1, -2), "keys"),
    "values with a batch axis": (lambda c: c.values[np.newaxis], "values"),
    # (not reshape(-1): the kept tokens are not contiguous, so numpy returns a copy)
}


def _item(a):
    a[(0,) * a.ndim] = 99.0


def _slice(a):
    a[:1] = 99.0


def _everything(a):
    a[...] = 0.0


def _add_in_place(a):
    a += 1.0


def _multiply_in_place(a):
    a *= 2.0


def _add_in_place_to_a_slice(a):
    a[:1] += 1.0


def _ufunc_out(a):
    np.add(a, 1.0, out=a)


def _one_argument_ufunc_out(a):
    np.negative(a, out=a)


def _ufunc_at(a):
    np.add.at(a, (0,) * a.ndim, 1.0)


WRITES = [_item, _slice, _everything, _add_in_place, _multiply_in_place,
          _add_in_place_to_a_slice, _ufunc_out, _one_argument_ufunc_out, _ufunc_at]


def _copyto(a):
    np.copyto(a, 0.0)


def _fill(a):
    a.fill(0.0)


def _sort(a):
    a.sort()


def _through_asarray(a):
    np.asarray(a)[...] = 0.0  # a plain numpy array again: numpy's own flag


NUMPYS_OWN_WRITES = [_copyto, _fill, _sort, _through_asarray]


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("write", WRITES, ids=[w.__name__.strip("_") for w in WRITES])
@pytest.mark.parametrize("view", VIEWS, ids=list(VIEWS))
@pytest.mark.parametrize("make", CACHES.values(), ids=list(CACHES))
def test_writing_into_a_kv_cache_view_is_our_error_and_changes_nothing(make, view, write,
                                                                       language):
    """Was numpy's "ValueError: assignment destination is read-only"."""
    lang.set_language(language)
    cache = make()
    before = cache.keys.copy(), cache.values.copy()
    get, part = VIEWS[view]
    with pytest.raises(ValueError) as raised:
        write(get(cache))
    message = str(raised.value)
    assert f"KVCache.{part}" in message and f"cache.{part}.copy()" in message, message
    assert "cache.append(k, v)" in message, message
    if language == "ko":
        assert "읽기 전용" in message and message.endswith("."), message
    else:
        assert "read-only view" in message and "destination" not in message, message
    np.testing.assert_array_equal(cache.keys, before[0])
    np.testing.assert_array_equal(cache.values, before[1])


@pytest.mark.parametrize("write", NUMPYS_OWN_WRITES,
                         ids=[w.__name__.strip("_") for w in NUMPYS_OWN_WRITES])
def test_the_writes_left_to_numpy_are_refused_by_numpy_and_change_nothing(write):
    """Not caught (no ufunc, no item assignment): numpy's message, the cache unchanged."""
    cache = _filled_cache()
    before = cache.keys.copy()
    with pytest.raises(ValueError, match="read-only"):
        write(cache.keys)
    np.testing.assert_array_equal(cache.keys, before)


@pytest.mark.parametrize("write", WRITES + NUMPYS_OWN_WRITES,
                         ids=[w.__name__.strip("_") for w in WRITES + NUMPYS_OWN_WRITES])
def test_the_advised_copy_takes_every_write(write):
    """What the message advises, ``mine = cache.keys.copy()``, is an array every write
    works on, and the cache stays as it was."""
    cache = _filled_cache()
    before = cache.keys.copy()
    mine = cache.keys.copy()
    write(mine)
    np.testing.assert_array_equal(cache.keys, before)


@pytest.mark.parametrize("which", ["keys", "values"])
@pytest.mark.parametrize("write", WRITES, ids=[w.__name__.strip("_") for w in WRITES])
def test_the_sliding_window_and_paged_caches_hand_out_copies_every_write_takes(write, which):
    """Their keys and values are copies (the ring's slots are reused; the blocks are
    gathered): every write works and leaves the cache alone."""
    from qkv_helpers.kv_cache import SlidingWindowKVCache

    window = SlidingWindowKVCache(2, 3, window=2)
    paged = qk.PagedKVCache(2, 3, block_size=2, n_blocks=4)
    seq = paged.new_sequence()
    for value in (1.0, 2.0, 3.0):  # the window has slid once
        window.append(np.full((2, 1, 3), value), np.full((2, 1, 3), -value))
        paged.append(seq, np.full((2, 1, 3), value), np.full((2, 1, 3), -value))
    for get in (lambda: getattr(window, which), lambda: getattr(paged, which)(seq)):
        before = get().copy()
        write(get())
        np.testing.assert_array_equal(get(), before)
