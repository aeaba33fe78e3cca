"""Lesson 14's checkers, widgets, plots and the backward-memory measurement."""

import io
import re
import warnings
from pathlib import Path

import numpy as np
import PIL.Image
import pytest

import qkv_helpers as qk
from qkv_helpers import attention_backward as ab
from qkv_helpers import backprop as bp
from qkv_helpers import toy_corpus as tc
from qkv_helpers import translator as trn
from qkv_helpers.classroom.checks import lesson_14 as c14


@pytest.fixture(scope="module")
def model():
    return trn.load_trained()[0]


@pytest.fixture(scope="module")
def short_run():
    return trn.train(steps=40, eval_every=20, n_heads=2, encoder_self_attention=True)


def _backward(q, k, v, d_out):
    s = k @ q / np.sqrt(len(q))
    p = np.exp(s - s.max())
    p /= p.sum()
    d_p = v @ d_out
    d_s = p * (d_p - p @ d_p)
    return d_s @ k / np.sqrt(len(q)), np.outer(d_s, q) / np.sqrt(len(q)), np.outer(p, d_out)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_attention_backward(lang):
    qk.setup(lang=lang)
    assert c14.check_attention_backward(_backward).ok is True
    assert c14.check_attention_backward(...).ok is None
    assert c14.check_attention_backward(lambda q, k, v, d: ...).ok is None
    # the scale forgotten, the Jacobian's second term forgotten, d_k and d_v swapped: wrong
    def no_scale(q, k, v, d):
        d_q, d_k, d_v = _backward(q, k, v, d)
        return d_q * np.sqrt(len(q)), d_k * np.sqrt(len(q)), d_v

    def no_jacobian(q, k, v, d):
        s = k @ q / np.sqrt(len(q))
        p = np.exp(s) / np.exp(s).sum()
        d_s = p * (v @ d)
        return d_s @ k / np.sqrt(len(q)), np.outer(d_s, q) / np.sqrt(len(q)), np.outer(p, d)

    # the package's own backward, however it is reached, or the checker's differences: refused
    from qkv_helpers.backprop import softmax_backward as alias

    def wrapped(q, k, v, d_out):
        w = qk.scaled_dot_product_attention(q[None], k, v).weights
        d_q, d_k, d_v = bp.attention_backward(d_out[None], q[None], k, v, w)
        return d_q[0], d_k, d_v

    def recomputed(q, k, v, d_out):
        out, _, lse = ab.forward_with_logsumexp(q[None], k, v)
        d_q, d_k, d_v = ab.recompute_backward(d_out[None], q[None], k, v, out, lse, 4)
        return d_q[0], d_k, d_v

    def aliased(q, k, v, d_out):
        s = k @ q / np.sqrt(len(q))
        p = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        d_s = alias(v @ d_out, p)
        return d_s @ k / np.sqrt(len(q)), np.outer(d_s, q) / np.sqrt(len(q)), np.outer(p, d_out)

    for lazy in (wrapped, recomputed, aliased, bp.attention_backward,
                 lambda q, k, v, d: c14._numeric_gradients(q, k, v, d)):
        feedback = c14.check_attention_backward(lazy)
        assert feedback.ok is False and feedback.message == qk.lang.t(
            "check_l14_backward_package", name="my_backward"), lazy
    assert c14.check_attention_backward(_backward).ok is True  # the profiler is gone again
    for bad in (no_scale, no_jacobian, lambda q, k, v, d: (q, k, v), lambda q, k, v, d: 1 / 0,
                lambda q, k, v, d: (q,), lambda q, k, v, d: "abc", 42, "my_backward",
                lambda: 0, lambda q, k, v, d: (np.full_like(q, np.nan), k, v)):
        feedback = c14.check_attention_backward(bad)
        assert feedback.ok is False, bad
        assert feedback.message


def test_check_row_attention(model):
    qk.setup(lang="en")
    pair = tc.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
    assert c14.check_row_attention("hid", model, pair, "숨었다").ok is True
    assert c14.check_row_attention(" Hid ", model, pair, "숨었다").ok is True
    assert c14.check_row_attention("behind", model, pair, "뒤에").ok is True
    for wrong in ("bench", "the", "behind", "<eos>"):
        feedback = c14.check_row_attention(wrong, model, pair, "숨었다")
        assert feedback.ok is False and "hid" not in feedback.message  # the answer isn't told
    for odd in ("zebra", 3, ["hid"], None, ...):
        assert c14.check_row_attention(odd, model, pair, "숨었다").ok is not True
    feedback = c14.check_row_attention("hid", "model", pair, "숨었다")
    assert feedback.ok is False and feedback.message == qk.lang.t("check_l14_row_setup")
    for row in ("숨다", 5, None, "hid"):  # not a Korean token of the sentence
        assert c14.check_row_attention("hid", model, pair, row).key == "check_l14_row_setup"


def test_check_break_it(model):
    qk.setup(lang="ko")

    def fake(loss, exact):
        history = [{"step": 300, "loss": loss, "exact_match": exact, "alignment": 0.2}]
        return trn.TrainingRun(model, history, [], 300, 1.0, None, None)

    diverged, memorised, fine = fake(2.4, 0.0), fake(0.001, 0.1), fake(0.004, 1.0)
    assert c14.check_break_it(diverged, "a").ok is True
    assert c14.check_break_it(diverged, "b").ok is False
    assert c14.check_break_it(memorised, "b").ok is True
    assert c14.check_break_it(memorised, "a").ok is False
    assert c14.check_break_it(fine, "c").ok is None  # it has to break first (✏️, not ❌)
    assert c14.check_break_it(fine, "c").message == qk.lang.t(  # though "c" reads it right
        "check_l14_break_not_broken_seen", exact="100")
    assert c14.check_break_it(diverged, "c").ok is False
    for run, answer in ((diverged, "b"), (memorised, "a"), (diverged, "c")):  # no answer given
        assert c14.check_break_it(run, answer).message == qk.lang.t(
            "check_l14_break_wrong", name="my_diagnosis")
    assert c14.check_break_it(fake(float("nan"), 0.0), "a").ok is True
    assert c14.check_break_it(memorised, "d").ok is False
    assert c14.check_break_it("run", "a").ok is False
    assert c14.check_break_it(..., ...).ok is None


def test_small_training_set_memorises():
    run = trn.train(n_train=20, eval_every=100)
    assert run.history[-1]["loss"] < 0.3 and run.history[-1]["exact_match"] < 0.5
    assert c14.check_break_it(run, "b").ok is True


def test_recompute_backward_equals_plain():
    rng = np.random.default_rng(3)
    for n, block in ((50, 16), (64, 64), (7, 100)):
        q, k, v, d_out = (rng.standard_normal((n, 8)) for _ in range(4))
        out, p, lse = ab.forward_with_logsumexp(q, k, v)
        np.testing.assert_allclose(p, qk.softmax((q @ k.T) / np.sqrt(8)), rtol=1e-12)
        np.testing.assert_allclose(lse, np.log(np.exp((q @ k.T) / np.sqrt(8)).sum(-1)))
        for a, b in zip(ab.plain_backward(d_out, q, k, v, p),
                        ab.recompute_backward(d_out, q, k, v, out, lse, block)):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_measure_backward_keeps_n_squared_against_n():
    costs = ab.measure_backward([128, 256])
    # both keep q, k, v and the output (4·n·d float32); beyond that, P (n²) or L (n)
    for n, plain, again in zip(costs.lengths, costs.kept_plain, costs.kept_recompute):
        assert plain - 4 * n * n == again - 4 * n == 4 * 4 * n * 64
    assert costs.kept_recompute[1] / costs.kept_recompute[0] == pytest.approx(2)
    assert costs.peak_recompute[1] < costs.peak_plain[1]
    assert [b / a for a, b in zip(costs.flops_plain, costs.flops_recompute)] == [1.25, 1.25]


def test_where_attention_lands_sums_to_one_and_matches_agreement(model):
    corpus, vocab = tc.make_corpus(), tc.Vocabulary()
    w = model.cross_attention(trn.make_batch(corpus.heldout[:50], vocab))
    lands = trn.where_attention_lands(w, corpus.heldout[:50])
    assert sum(lands.values()) == pytest.approx(1)
    assert lands["gold"] == pytest.approx(trn.alignment_agreement(w, corpus.heldout[:50]))


def _pixels(png):
    return np.asarray(PIL.Image.open(io.BytesIO(bytes(png))).convert("RGB")).astype(int)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_widgets_update_draws_what_a_fresh_build_draws(lang, model, short_run):
    qk.setup(lang=lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. a missing glyph
        panels = [qk.widgets.attention_learning_explorer(short_run),
                  qk.widgets.sentence_translator(model)]
        panels[0].controls["step"].value = 40
        panels[1].controls["subject_adjective"].value = "big"
        panels[1].controls["place"].value = "bridge"
        for panel in panels:
            changed = _pixels(panel.live.image.value)
            panel.live._handle = None  # the same state, built from scratch
            panel.live.redraw(panel)
            assert np.abs(changed - _pixels(panel.live.image.value)).max() <= 8
    assert panels[0].state["step"] == 40
    assert panels[1].state["translation"] == ["큰", "고양이가", "다리", "위에", "앉았다"]
    assert panels[1].state["correct"]


def test_plots_draw_and_refuse_bad_input(short_run):
    qk.setup(lang="en")
    fig = qk.plots.plot_training_curves(short_run.history)
    assert len(fig.axes) == 2
    pair = short_run.corpus.heldout[0]
    fig = qk.plots.plot_alignment_maps(short_run.snapshots[-1], [*pair.korean, "<eos>"],
                                       [*pair.english, "<eos>"], pair.alignment)
    assert len(fig.axes) == 3 and len(fig.axes[0].patches) == len(pair.alignment)
    with pytest.raises(ValueError, match="history"):
        qk.plots.plot_training_curves([])
    with pytest.raises(ValueError, match="weights"):
        qk.plots.plot_alignment_maps(np.ones((2, 3)), ["a", "b"], ["x", "y", "z"])
    with pytest.raises(ValueError, match="alignment"):
        qk.plots.plot_alignment_maps(np.full((1, 2, 3), 0.3), ["a", "b"], ["x", "y", "z"], [5])


def test_kept_bytes_counts_what_measure_backward_measures():
    costs = ab.measure_backward([128, 256])
    for i, n in enumerate(costs.lengths):
        assert ab.kept_bytes(n, 64, False) == costs.kept_plain[i]
        assert ab.kept_bytes(n, 64, True) == costs.kept_recompute[i]
    with pytest.raises(ValueError, match="n"):
        ab.kept_bytes(0, 64, True)


def test_token_accuracy_against_a_direct_count(model):
    corpus, vocab = tc.make_corpus(), tc.Vocabulary()
    pairs = corpus.heldout[:20]
    batch = trn.make_batch(pairs, vocab)
    logits, _ = model.forward(batch)
    hits = total = 0
    for i, p in enumerate(pairs):  # the Korean tokens and <eos>, one sentence at a time
        gold = [*vocab.encode(p.korean), vocab.eos]
        predicted = logits[i, : len(p.korean) + 1].argmax(-1)
        hits += int((predicted == np.array(gold)).sum())
        total += len(gold)
    assert trn.token_accuracy(logits, batch) == pytest.approx(hits / total)
    wrong = np.roll(logits, 1, axis=-1)  # every prediction shifted to the next id: all wrong
    assert trn.token_accuracy(wrong, batch) == 0.0
    with pytest.raises(ValueError, match="logits"):
        trn.token_accuracy(logits[:, :2], batch)


def test_chance_agreement_is_the_mean_over_rows_of_one_over_the_source_length():
    corpus = tc.make_corpus()
    pairs = corpus.heldout[:100]
    rows = [(len(p.english) + 1) for p in pairs for _ in p.korean]
    assert trn.chance_agreement(pairs) == pytest.approx(np.mean([1 / n for n in rows]))
    assert 1 / 9 <= trn.chance_agreement(pairs) <= 1 / 7
    rng = np.random.default_rng(0)  # a random attention scores about that
    w = rng.random((len(pairs), 1, 8, 10))
    for i, p in enumerate(pairs):
        w[i, :, :, len(p.english) + 1:] = 0
    assert abs(trn.alignment_agreement(w, pairs) - trn.chance_agreement(pairs)) < 0.05
    with pytest.raises(ValueError, match="pairs"):
        trn.chance_agreement([])


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_attention_backward_says_what_came_back(lang):
    qk.setup(lang=lang)

    def forgot_return(q, k, v, d_out):
        _backward(q, k, v, d_out)

    cases = {
        forgot_return: "check_l14_backward_returned_none",
        lambda q, k, v, d: ("d_q", "d_k", "d_v"): "check_l14_backward_not_numbers",
        lambda q, k, v, d: np.zeros(5): "check_l14_backward_one_array",
        lambda q, k, v, d: _backward(q, k, v, d)[:2]: "check_l14_backward_count",
        lambda q, k, v, d: {"d_q": q}: "check_l14_backward_not_three",
        lambda q, k, v, d: (q, k[:, :2], v): "check_l14_backward_shape",
    }
    for fn, key in cases.items():
        feedback = c14.check_attention_backward(fn)
        assert feedback.ok is False and feedback.key == key, (key, feedback)
        assert "NoneType" not in feedback.message and "()" not in feedback.message
        assert feedback.message.rstrip().endswith(".")
    assert "(5,)" in c14.check_attention_backward(lambda q, k, v, d: np.zeros(5)).message
    # the cell's ``return ...`` is the only "not answered yet"
    assert c14.check_attention_backward(lambda q, k, v, d: ...).ok is None


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_attention_backward_names_the_usual_mistakes(lang):
    qk.setup(lang=lang)
    root = np.sqrt

    def no_scale(q, k, v, d):
        d_q, d_k, d_v = _backward(q, k, v, d)
        return d_q * root(len(q)), d_k * root(len(q)), d_v

    def no_jacobian_term(q, k, v, d):
        s = k @ q / root(len(q))
        p = np.exp(s) / np.exp(s).sum()
        d_s = p * (v @ d)
        return d_s @ k / root(len(q)), np.outer(d_s, q) / root(len(q)), np.outer(p, d)

    def no_softmax(q, k, v, d):
        s = k @ q / root(len(q))
        p = np.exp(s) / np.exp(s).sum()
        d_s = v @ d
        return d_s @ k / root(len(q)), np.outer(d_s, q) / root(len(q)), np.outer(p, d)

    def swapped(q, k, v, d):
        d_q, d_k, d_v = _backward(q, k, v, d)
        return -d_q, d_k, d_v

    for fn, key in ((no_scale, "check_l14_backward_no_scale"),
                    (no_jacobian_term, "check_l14_backward_no_jacobian_term"),
                    (no_softmax, "check_l14_backward_no_softmax"),
                    (swapped, "check_l14_backward_wrong")):
        feedback = c14.check_attention_backward(fn)
        assert feedback.ok is False and feedback.key == key, (key, feedback)
    assert "2.24" in c14.check_attention_backward(no_scale).message  # √5, the first case's d


def test_check_break_it_on_runs_that_are_not_broken(model):
    qk.setup(lang="en")
    short = trn.train(steps=60)  # the normal lr, a fifth of the steps: unfinished, not broken
    assert short.settings["steps"] == 60 and short.settings["lr"] == 0.01
    assert short.history[-1]["exact_match"] < 0.5 and short.history[-1]["loss"] > 0.3
    for answer in ("a", "b", "c"):  # "a" (steps too large) must not pass
        feedback = c14.check_break_it(short, answer)
        assert feedback.ok is None and feedback.key == "check_l14_break_unfinished", answer
        assert repr(feedback).startswith("✏️")
    fine = trn.TrainingRun(model, [{"step": 300, "loss": 0.004, "exact_match": 1.0}], [], 300,
                           1.0, None, None)
    feedback = c14.check_break_it(fine, "c")  # "c" reads it right: no ❌ beside that
    assert feedback.ok is None and not repr(feedback).startswith("❌")
    assert c14.check_break_it(fine, "a").ok is False


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_row_attention_a_quoted_word_not_in_the_sentence(lang, model):
    qk.setup(lang=lang)
    pair = tc.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
    feedback = c14.check_row_attention("zebra", model, pair, "숨었다")
    assert feedback.ok is False and feedback.key == "check_l14_row_not_in_sentence"
    assert "zebra" in feedback.message
    assert c14.check_row_attention(3, model, pair, "숨었다").key == "check_l14_row_not_word"
    for key in ("check_l14_row_setup", "check_l14_row_not_word"):
        assert qk.lang.t(key, name="x", words="a").endswith(".")


def test_each_operation_checked_on_its_own_finds_the_planted_bug():
    errors = bp.check_each_operation()
    assert list(errors) == ["embedding", "linear", "relu", "layer_norm", "split_heads",
                            "softmax", "attention", "cross_entropy"]
    assert max(errors.values()) < 1e-8

    def layer_norm_no_y_term(d_out, y, inv_std):
        return (d_out - d_out.mean(axis=-1, keepdims=True)) * inv_std

    def linear_no_transpose(d_out, x, w):
        d_x, d_w = bp.linear_backward(d_out, x, w)
        return d_x, 2 * d_w

    def softmax_only_diagonal(d_p, p):
        return p * d_p

    def attention_no_scale(d_out, q, k, v, p):
        d_q, d_k, d_v = bp.attention_backward(d_out, q, k, v, p)
        return d_q * 2, d_k * 2, d_v  # √4: the scale left out

    def relu_everywhere(d_out, x):
        return d_out

    for name, bug, op in (("layer_norm_backward", layer_norm_no_y_term, "layer_norm"),
                          ("linear_backward", linear_no_transpose, "linear"),
                          ("softmax_backward", softmax_only_diagonal, "softmax"),
                          ("attention_backward", attention_no_scale, "attention"),
                          ("relu_backward", relu_everywhere, "relu")):
        found = bp.check_each_operation(**{name: bug})
        assert [o for o, e in found.items() if e > 1e-6] == [op], name
    with pytest.raises(TypeError, match="attention_forward"):
        bp.check_each_operation(attention_forward=softmax_only_diagonal)
    with pytest.raises(TypeError, match="relu_backward"):
        bp.check_each_operation(relu_backward=3)


def test_gradient_check_by_eps_falls_then_rises_and_catches_a_bug():
    vocab = tc.Vocabulary()
    model = trn.Translator(len(vocab), 16, n_heads=2, seed=1, dtype=np.float64)
    batch = trn.make_batch(tc.make_corpus().train[:3], vocab)
    by_eps = trn.gradient_check_by_eps(model, batch)
    best = min(by_eps, key=by_eps.get)
    assert 1e-6 <= best <= 1e-3  # truncation above, rounding below
    assert by_eps[1e-2] > 10 * by_eps[best] and by_eps[1e-9] > 10 * by_eps[best]
    # on log axes: slope about 2 where truncation dominates, about -1 where rounding does
    assert 1.5 < np.log10(by_eps[1e-2] / by_eps[1e-3]) < 2.5
    assert 0.5 < np.log10(by_eps[1e-9] / by_eps[1e-8]) < 1.5
    assert trn.gradient_check(model, batch, names=["w_out"]).keys() == {"w_out"}
    with pytest.raises(ValueError, match="names"):
        trn.gradient_check(model, batch, names=["w_query"])
    original = model.backward

    def off_by_a_bit(d_logits, cache):  # a planted bug: one gradient 1% off
        grads = original(d_logits, cache)
        grads["dec.cross.w_q"] = grads["dec.cross.w_q"] * 1.01
        return grads

    model.backward = off_by_a_bit
    assert min(trn.gradient_check_by_eps(model, batch).values()) > 1e-3


def test_score_push_is_minus_the_scores_gradient(model):
    corpus, vocab = tc.make_corpus(), tc.Vocabulary()
    pairs = corpus.heldout[:4]
    batch = trn.make_batch(pairs, vocab)
    push = trn.score_push(model, batch)  # (B, H, n_tgt, n_src)
    np.testing.assert_allclose(push.sum(-1), 0, atol=1e-6)  # the softmax's Jacobian
    assert (push[batch.source[:, None, None, :].repeat(push.shape[2], 2) == 0] == 0).all()
    # chain rule on: d_W_q = Σ x_qᵀ·(d_S·k/√d), d_S = −push (one head, float32 model)
    _, grads = model.loss_and_grads(batch)
    _, cache = model.forward(batch)
    x_q, _, _, k, *_ = cache["dec.cross"]
    d_q = (-push @ k)[:, 0] / np.sqrt(k.shape[-1])  # (B, n_tgt, d)
    expected = x_q.reshape(-1, x_q.shape[-1]).T @ d_q.reshape(-1, d_q.shape[-1])
    np.testing.assert_allclose(grads["dec.cross.w_q"], expected, rtol=1e-3, atol=1e-6)


def test_push_agreement_counts_only_each_sentences_own_keys():
    pair = tc.Pair(("the", "cat"), ("고양이가",), (1,))
    push = np.zeros((1, 1, 2, 5))
    push[0, 0, 0] = [-0.2, 0.1, -0.1, 0.0, 0.9]  # the biggest at a padding column: not read
    assert trn.push_agreement(push, [pair]) == 1.0
    push[0, 0, 0, 1] = -0.3
    push[0, 0, 0, 0] = 0.5
    assert trn.push_agreement(push, [pair]) == 0.0
    with pytest.raises(ValueError, match="pairs"):
        trn.push_agreement(push, [pair, pair])


def test_training_records_the_push_the_norm_and_the_rows_of_the_alignment():
    run = trn.train(steps=30, eval_every=10)
    assert [r["step"] for r in run.history] == [0, 10, 20, 30]
    assert len(run.pushes) == len(run.snapshots) == 4
    assert run.pushes[0].shape == run.snapshots[0].shape
    for r in run.history:
        assert 0 <= r["push"] <= 1 and r["grad_norm"] > 0
        assert 0 <= r["token_accuracy_words"] <= 1
    # token accuracy on the alignment's rows: a direct count without <eos>
    corpus, vocab = run.corpus, run.vocab
    batch = trn.make_batch(corpus.heldout[:100], vocab)
    logits, _ = run.model.forward(batch)
    hits = total = 0
    for i, p in enumerate(corpus.heldout[:100]):
        predicted = logits[i, : len(p.korean)].argmax(-1)
        hits += int((predicted == np.array(vocab.encode(p.korean))).sum())
        total += len(p.korean)
    assert run.history[-1]["token_accuracy_words"] == pytest.approx(hits / total)
    assert run.settings == {"steps": 30, "batch_size": 32, "lr": 0.01, "warmup": 20,
                            "n_heads": 1, "encoder_self_attention": False, "seed": 0,
                            "n_train": 3000}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_new_lesson_14_plots_draw_without_missing_glyphs(lang, short_run):
    qk.setup(lang=lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = qk.plots.plot_gradient_check({"w_q": 1e-9, "w_k": 3e-9},
                                           {1e-2: 1e-5, 1e-5: 1e-9, 1e-8: 1e-6}, eps=1e-5)
        assert len(fig.axes) == 2 and len(fig.axes[0].patches) == 2
        fig = qk.plots.plot_score_push(short_run, [0, 20])
        assert len(fig.axes) == 5
        fig = qk.plots.plot_optimiser(short_run.history, steps=40)
        assert len(fig.axes) == 2
    with pytest.raises(ValueError, match="steps"):
        qk.plots.plot_score_push(short_run, [5])
    with pytest.raises(ValueError, match="errors"):
        qk.plots.plot_gradient_check({}, {1e-5: 1e-9})
    with pytest.raises(ValueError, match="history"):
        qk.plots.plot_optimiser([{"step": 0}])


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_row_attention_one_head(lang, model, short_run):
    qk.setup(lang=lang)
    pair = tc.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
    source = [*pair.english, "<eos>"]
    w = short_run.model.cross_attention(trn.make_batch([pair], tc.Vocabulary()))[0]
    for row, korean in enumerate(pair.korean):
        for head in (0, 1):
            peak = source[int(w[head, row].argmax())]
            feedback = c14.check_row_attention(peak, short_run.model, pair, korean, head=head)
            assert feedback.ok is True
            others = [s for s in dict.fromkeys(source) if s != peak]
            wrong = c14.check_row_attention(others[0], short_run.model, pair, korean, head=head)
            assert wrong.ok is False and wrong.key == "check_l14_row_wrong_head"
            assert f'"{peak}"' not in wrong.message  # the answer isn't told
    for bad in (2, -1, "first", 0.5):
        assert c14.check_row_attention("the", short_run.model, pair, "숨었다", head=bad).key == (
            "check_l14_row_setup")
    # a row that reads the word it translates is not told "not at the word it translates"
    feedback = c14.check_row_attention("hid", model, pair, "숨었다", head=0)
    assert feedback.ok is True and feedback.key == "check_l14_row_right_gold"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_lesson_14_check_message_ends_with_a_period(lang):
    import string

    table = qk.lang.STRINGS[lang]
    keys = [k for k in table if k.startswith("check_l14_")]
    assert len(keys) > 20
    for key in keys:
        fields = {f for _, f, _, _ in string.Formatter().parse(table[key]) if f}
        text = table[key].format(**{f: "x." if f == "explanation" else "x" for f in fields})
        assert text.rstrip().endswith("."), (key, text[-40:])


def test_check_row_attention_tells_whether_the_token_holds_the_word():
    qk.setup(lang="en")
    sa = trn.train(encoder_self_attention=True, n_heads=2, eval_every=300)
    pair = tc.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
    _, cache = sa.model.forward(trn.make_batch([pair], tc.Vocabulary()))
    encoder = cache["enc.self"][5][0].mean(axis=0)  # (source, source), heads averaged
    verb, eos = pair.alignment[-1], len(pair.english)
    behind = pair.english.index("behind")
    # head 1 reads "hid" at <eos>, which took almost none of it; head 0 reads it at a "the"
    # that took much; head 0 reads "behind" at <eos>, which took part of it (the exercise)
    empty = c14.check_row_attention("<eos>", sa.model, pair, "숨었다", head=1)
    assert empty.ok is True and empty.key == "check_l14_row_right_head_empty"
    assert f"{encoder[eos, verb]:.2f}" in empty.message and encoder[eos, verb] < 0.1
    full = c14.check_row_attention("the", sa.model, pair, "숨었다", head=0)
    assert full.ok is True and full.key == "check_l14_row_right_head"
    assert max(encoder[0, verb], encoder[5, verb]) >= 0.1
    part = c14.check_row_attention("<eos>", sa.model, pair, "뒤에", head=0)
    assert part.ok is True and part.key == "check_l14_row_right_head"
    assert f"{encoder[eos, behind]:.2f}" in part.message and encoder[eos, behind] >= 0.1
    assert "0.11" in part.message  # an even spread over the 9 source tokens
    for feedback in (empty, full, part):  # "moved part of" only at twice the even share
        assert (feedback.key == "check_l14_row_right_head") == (
            float(re.search(r"gives \"\w+\" ([\d.]+)", feedback.message)[1]) >= 2 / 9)
    # "was" took 0.16 of "dog" in the encoder: more than an even spread (1/9), less than twice
    dog = tc.build_sentence("dog", "was", "behind", "house", "small", "white")
    _, cache = sa.model.forward(trn.make_batch([dog], tc.Vocabulary()))
    took = cache["enc.self"][5][0].mean(axis=0)[dog.english.index("was"), 2]
    assert 1 / 9 < took < 2 / 9, took
    spread = c14.check_row_attention("was", sa.model, dog, "개가", head=1)
    assert spread.ok is True and spread.key == "check_l14_row_right_head_empty", spread.message
    assert "almost nothing" not in spread.message and "twice an even share" in spread.message
    qk.setup(lang="ko")
    spread = c14.check_row_attention("was", sa.model, dog, "개가", head=1)
    assert "거의" not in spread.message and "두 배가 안 돼요" in spread.message, spread.message
    qk.setup(lang="en")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_row_attention_heads_averaged_claims_only_what_it_checks(lang, model):
    """The trained model has no encoder self-attention; the heads-averaged message says
    nothing of it, nor of the translation, which it does not check."""
    qk.setup(lang=lang)
    pair = tc.build_sentence("duck", "lay", "in", "bag", "white")
    assert not model.encoder_self_attention
    feedback = c14.check_row_attention("the", model, pair, "오리가")
    assert feedback.ok is True and feedback.key == "check_l14_row_right"
    for claim in ("self-attention", "셀프 어텐션", "translation", "번역"):
        assert claim not in feedback.message, feedback.message


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_row_setup_message_names_the_call_the_exercise_makes(lang):
    """The setup hint quotes the exercise's own call, head included."""
    source = (Path(__file__).resolve().parents[2] / "notebooks" / "src" /
              "14_watch_attention_learn.py").read_text(encoding="utf-8")
    calls = set(re.findall(r"check_row_attention\((my_word, [^)]*)\)", source))
    assert len(calls) == 1, calls  # the exercise and its solution make the same call
    qk.setup(lang=lang)
    assert f"check_row_attention({calls.pop()})" in qk.lang.t("check_l14_row_setup")
