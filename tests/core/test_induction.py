"""Lesson 15's model, data, scores, training, checks, plots and widgets (qkv_helpers.induction).

The backward pass is checked three ways: finite differences (float64), a naive forward
written as loops, and torch's autograd when torch is installed.
"""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers import induction as ind
from qkv_helpers.classroom.checks import lesson_15 as c15
from qkv_helpers.lang import t as text_of

CHANCE = math.log(32)


@pytest.fixture(scope="module")
def run():
    return ind.train(**ind.TRAINING_SETTINGS)


@pytest.fixture(scope="module")
def fixed_run():
    return ind.train(steps=600, repeat_lengths=(16, 16), seed=0)


# --- the data ---------------------------------------------------------------------------------

@given(st.integers(0, 2**31), st.integers(2, 8), st.integers(0, 6))
def test_sequences_end_with_a_segment_repeated_once(seed, low, extra):
    high = min(16, low + extra)
    s = ind.make_sequences(5, seed=seed, repeat_lengths=(low, high))
    assert s.tokens.shape == (5, 32) and s.tokens.min() >= 0 and s.tokens.max() < 32
    assert ((low <= s.length) & (s.length <= high)).all()
    assert (s.repeat == 32 - s.length).all() and (s.first == s.repeat - s.length).all()
    for tokens, first, repeat in zip(s.tokens, s.first, s.repeat):
        assert (tokens[first:repeat] == tokens[repeat:]).all()


def test_the_repeat_length_varies_per_sequence():
    lengths = ind.make_sequences(200, seed=0).length
    assert set(lengths.tolist()) == set(range(8, 17))


@given(st.integers(0, 2**31))
def test_copying_targets_point_at_the_next_token(seed):
    s = ind.make_sequences(4, seed=seed)
    rows, queries, keys = ind.copying_targets(s)
    assert (s.tokens[rows, keys] == s.tokens[rows, queries + 1]).all()  # the token to copy
    assert (s.tokens[rows, keys - 1] == s.tokens[rows, queries]).all()  # after my token
    assert len(rows) == (s.length - 1).sum()


@pytest.mark.parametrize("bad", [(16, 17), (1, 4), (9, 8), 8, "8"])
def test_bad_repeat_lengths_are_refused(bad):
    with pytest.raises((TypeError, ValueError), match="repeat_lengths"):
        ind.make_sequences(2, repeat_lengths=bad)


# --- the model --------------------------------------------------------------------------------

def _naive_logits(model, tokens, knock_out=None):
    """The forward with loops over positions: an independent reference."""
    p = model.params
    b, n = tokens.shape
    x0 = np.array([[p["embedding"][tok] + p["positions"][t] for t, tok in enumerate(row)]
                   for row in tokens])
    x = x0.copy()
    for layer in range(model.n_layers):
        if layer == 1 and knock_out == "head0":
            x = x0.copy()
        keys_in = x0 if layer == 1 and knock_out == "head0_keys" else x
        queries_in = x0 if layer == 1 and knock_out == "head0_queries" else x
        values_in = x0 if layer == 1 and knock_out == "head0_values" else x
        out = np.zeros_like(x)
        for i in range(b):
            for t in range(n):
                q = queries_in[i, t] @ p[f"l{layer}.w_q"]
                scores = np.array([q @ (keys_in[i, j] @ p[f"l{layer}.w_k"])
                                   for j in range(t + 1)]) / math.sqrt(len(q))
                w = np.exp(scores - scores.max())
                w /= w.sum()
                head = sum(w[j] * (values_in[i, j] @ p[f"l{layer}.w_v"])
                           for j in range(t + 1))
                out[i, t] = head @ p[f"l{layer}.w_o"]
        x = x + out
    return x @ p["w_u"]


@pytest.mark.parametrize("n_layers, knock_out", [(2, None), (1, None), (2, "head0"),
                                                 (2, "head0_keys"), (2, "head0_queries"),
                                                 (2, "head0_values")])
def test_forward_matches_a_naive_loop(n_layers, knock_out):
    model = ind.InductionModel(n_layers, seed=3)
    tokens = ind.make_sequences(2, seed=4).tokens[:, :12]
    logits, _ = model.forward(tokens, knock_out)
    np.testing.assert_allclose(logits, _naive_logits(model, tokens, knock_out), atol=1e-12)


def test_knocking_out_head0_equals_a_zero_output_matrix():
    model = ind.InductionModel(seed=5)
    tokens = ind.make_sequences(3, seed=5).tokens
    knocked, _ = model.forward(tokens, "head0")
    model.params["l0.w_o"][:] = 0
    zeroed, _ = model.forward(tokens)
    np.testing.assert_allclose(knocked, zeroed, atol=1e-13)


def test_the_model_is_causal():
    model = ind.InductionModel(seed=1)
    tokens = ind.make_sequences(2, seed=2).tokens
    changed = tokens.copy()
    changed[:, 20:] = (changed[:, 20:] + 1) % 32
    a, cache = model.forward(tokens)
    b, _ = model.forward(changed)
    np.testing.assert_array_equal(a[:, :20], b[:, :20])
    assert not np.allclose(a[:, 20:], b[:, 20:])
    w = cache["l1"][5]
    np.testing.assert_allclose(w.sum(-1), 1.0)
    assert (np.triu(w[0, 0], 1) == 0).all()


@pytest.mark.parametrize("n_layers", [1, 2])
def test_gradients_match_finite_differences(n_layers):
    model = ind.InductionModel(n_layers, seed=n_layers)
    errors = ind.gradient_check(model, ind.make_sequences(3, seed=1).tokens, entries=20)
    assert len(errors) == 3 + 4 * n_layers
    assert max(errors.values()) < 1e-6


def test_a_wrong_gradient_is_caught():
    model = ind.InductionModel(seed=0)
    original = model.backward

    def broken(d_logits, cache):
        grads = original(d_logits, cache)
        grads["l1.w_k"] = grads["l1.w_k"] * 1.01
        return grads

    model.backward = broken
    errors = ind.gradient_check(model, ind.make_sequences(3, seed=1).tokens)
    assert errors["l1.w_k"] > 1e-3


def _torch_loss(torch, model, tokens):
    p = {n: torch.tensor(a, requires_grad=True) for n, a in model.params.items()}
    inputs, targets = torch.tensor(tokens[:, :-1]), torch.tensor(tokens[:, 1:])
    n = inputs.shape[1]
    x = p["embedding"][inputs] + p["positions"][:n]
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    for layer in range(model.n_layers):
        q, k, v = (x @ p[f"l{layer}.w_{w}"] for w in "qkv")
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        x = x + (weights @ v) @ p[f"l{layer}.w_o"]
    logits = x @ p["w_u"]
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             targets.reshape(-1))
    return loss, p


@pytest.mark.parametrize("n_layers", [1, 2])
def test_gradients_match_torch_autograd(n_layers):
    torch = pytest.importorskip("torch")
    model = ind.InductionModel(n_layers, seed=7)
    tokens = ind.make_sequences(4, seed=8).tokens
    loss, grads = model.loss_and_grads(tokens)
    torch_loss, leaves = _torch_loss(torch, model, tokens)
    torch_loss.backward()
    assert abs(loss - torch_loss.item()) < 1e-12
    for name, g in grads.items():
        np.testing.assert_allclose(g, leaves[name].grad.numpy(), rtol=0, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("bad, error", [
    (np.zeros((2, 33), int), ValueError), (np.full((1, 4), 32), ValueError),
    (np.zeros(4, int), ValueError), (np.zeros((1, 4)), TypeError)])
def test_bad_tokens_are_refused(bad, error):
    with pytest.raises(error, match="tokens"):
        ind.InductionModel().forward(bad)


def test_bad_knock_out_is_refused():
    with pytest.raises(ValueError, match="knock_out"):
        ind.InductionModel().forward(np.zeros((1, 4), int), "head1")
    with pytest.raises(ValueError, match="knock_out"):
        ind.InductionModel(1).forward(np.zeros((1, 4), int), "head0")


# --- the scores -------------------------------------------------------------------------------

def test_previous_token_score_by_hand():
    n = 5
    perfect = np.eye(n, k=-1)
    perfect[0, 0] = 1
    assert ind.previous_token_score(perfect) == 1.0
    uniform = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    assert ind.previous_token_score(uniform) == pytest.approx(np.mean(1 / np.arange(2, n + 1)))
    with pytest.raises(ValueError, match="weights"):
        ind.previous_token_score(np.ones((2, 3)))


def test_induction_score_by_hand():
    s = ind.make_sequences(3, seed=0)
    rows, queries, keys = ind.copying_targets(s)
    perfect = np.zeros((3, 32, 32))
    perfect[:, 0, 0] = 1
    perfect[rows, queries, keys] = 1
    assert ind.induction_score(perfect, s) == 1.0
    same_token = np.zeros((3, 32, 32))
    same_token[rows, queries, keys - 1] = 1  # the earlier copy itself, one too early
    assert ind.induction_score(same_token, s) == 0.0
    half = perfect * 0.5
    assert ind.induction_score(half, s) == 0.5
    with pytest.raises(ValueError, match="weights"):
        ind.induction_score(perfect[:2], s)


def test_duplicate_token_score_by_hand():
    s = ind.Sequences(np.array([[5, 1, 2, 1, 2]]), np.array([1]), np.array([3]), np.array([2]))
    w = np.zeros((1, 5, 5))
    w[0, 3, 1] = w[0, 4, 2] = 1.0  # the repeat looks back at its copy
    assert ind.duplicate_token_score(w, s) == 0.5
    w[0, 1, 3] = w[0, 2, 4] = 1.0  # and the first copy forward (an encoder can)
    assert ind.duplicate_token_score(w, s) == 1.0
    w[0, 4, 2], w[0, 4, 3] = 0.25, 0.75
    assert ind.duplicate_token_score(w, s) == pytest.approx(3.25 / 4)
    with pytest.raises(ValueError, match="weights"):
        ind.duplicate_token_score(w[:, :4, :4], s)


def test_cliff_step():
    history = [{"step": 0, "repeat": 3.5}, {"step": 50, "repeat": 2.48},
               {"step": 100, "repeat": 2.4}]
    assert ind.cliff_step(history) == 100
    assert ind.cliff_step(history, drop=0.5) == 50
    assert ind.cliff_step(history[:2]) is None


# --- training: the phase change, the knock-out, the controls -----------------------------------

def test_the_lesson_run(run):
    """Lesson 15's printed numbers (float64, one BLAS thread)."""
    h = run.history
    assert ind.cliff_step(h) == 700
    first, last = h[0], h[-1]
    assert (round(first["repeat"], 2), round(first["previous_token"], 2)) == (3.51, 0.1)
    assert (round(last["repeat"], 2), round(last["first"], 2)) == (1.27, 3.73)
    assert (round(last["previous_token"], 2), round(last["induction"], 2)) == (0.62, 0.77)
    # a plateau, then both scores jump together at the cliff
    before = next(r for r in h if r["step"] == 400)
    assert before["repeat"] > CHANCE - 0.5 and before["induction"] < 0.2
    assert before["previous_token"] < 0.2
    assert last["induction"] > 0.6 and last["previous_token"] > 0.5


def test_training_is_reproducible():
    a = ind.train(steps=60, eval_every=30, n_eval=20, seed=3)
    b = ind.train(steps=60, eval_every=30, n_eval=20, seed=3)
    assert a.history == b.history
    np.testing.assert_array_equal(a.model.params["w_u"], b.model.params["w_u"])


def test_history_loss_is_the_training_batches_mean_since_the_last_record():
    """history's "loss" is the mean training loss since the previous record (none before
    step 0), not the held-out loss: the same batches and Adam steps redone by hand."""
    run = ind.train(steps=4, batch_size=8, eval_every=2, n_eval=10, seed=5)
    model = ind.InductionModel(2, seed=5)
    data, state, losses = np.random.default_rng([5, 1]), {}, []
    for _ in range(4):
        tokens = ind.make_sequences(8, data, ind.REPEAT_LENGTHS).tokens
        loss, grads = model.loss_and_grads(tokens)
        qk.backprop.adam_step(model.params, grads, state, 2e-2)
        losses.append(loss)
    assert [r["step"] for r in run.history] == [0, 2, 4]
    assert math.isnan(run.history[0]["loss"])
    assert run.history[1]["loss"] == pytest.approx(np.mean(losses[:2]), rel=1e-12)
    assert run.history[2]["loss"] == pytest.approx(np.mean(losses[2:]), rel=1e-12)


def test_knocking_out_layer_0_stops_the_copying(run):
    for knock_out in ("head0", "head0_keys"):
        parts = ind.loss_by_part(run.model, run.evaluation, knock_out)
        assert parts["repeat"] > CHANCE - 0.3, knock_out
    assert ind.loss_by_part(run.model, run.evaluation)["repeat"] < 1.5


def test_the_composition_is_through_the_keys(run):
    """K-composition: layer 0's head taken from layer 1's queries or values alone changes
    the repeat's loss by little; from its keys alone, the copying stops."""
    intact = ind.loss_by_part(run.model, run.evaluation)["repeat"]
    for knock_out in ("head0_queries", "head0_values"):
        parts = ind.loss_by_part(run.model, run.evaluation, knock_out)
        assert abs(parts["repeat"] - intact) < 0.2, knock_out
    assert ind.loss_by_part(run.model, run.evaluation, "head0_keys")["repeat"] > intact + 1.5


def test_one_layer_never_copies():
    one = ind.train(steps=1200, n_layers=1, seed=0, eval_every=100)
    assert ind.cliff_step(one.history) is None
    assert one.history[-1]["induction"] < 0.2
    assert one.history[-1]["repeat"] > CHANCE - 0.5


def test_the_fixed_length_trap(fixed_run):
    at_16 = ind.make_sequences(200, seed=7, repeat_lengths=(16, 16))
    assert ind.loss_by_part(fixed_run.model, at_16)["repeat"] < 0.1
    layer1 = fixed_run.model.attention_maps(at_16.tokens[:, :-1])[1]
    assert ind.induction_score(layer1, at_16) > 0.5  # a high score: it looks right...
    for length in (8, 12):  # ...yet worse than chance at any other length
        other = ind.make_sequences(200, seed=7, repeat_lengths=(length, length))
        assert ind.loss_by_part(fixed_run.model, other)["repeat"] > CHANCE


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_five_seeds_reach_the_cliff(seed):
    r = ind.train(**{**ind.TRAINING_SETTINGS, "seed": seed})
    cliff = ind.cliff_step(r.history)
    assert cliff is not None and 300 <= cliff <= 1100
    assert r.history[-1]["induction"] > 0.5 and r.history[-1]["previous_token"] > 0.4


# --- the checks ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_induction_targets(run, lang):
    qk.setup(lang=lang)
    puzzle = ind.make_sequences(1, seed=7)
    tokens = puzzle.tokens[0]
    queries = [26, 23, 29]  # the lesson's
    targets = [int(np.flatnonzero(tokens[:q] == tokens[q])[-1]) + 1 for q in queries]
    assert targets == [15, 12, 18]
    maps = run.model.attention_maps(puzzle.tokens[:, :-1])
    assert [int(maps[1, 0, q].argmax()) for q in queries] == targets  # the model copies
    check = c15.check_induction_targets
    assert check(targets, run.model, puzzle, queries).ok is True
    assert check(np.array(targets), run.model, puzzle, queries).ok is True
    assert check([15.0, 12, 18], run.model, puzzle, queries).ok is True
    assert check(..., run.model, puzzle, queries).ok is None

    def key(answer):
        return check(answer, run.model, puzzle, queries).key

    assert key([14, 12, 18]) == "check_l15_target_same"  # the earlier 15 itself
    assert key([15, 22, 18]) == "check_l15_target_previous"
    assert key([15, 12, 29]) == "check_l15_target_itself"
    assert key([30, 12, 18]) == "check_l15_target_future"
    assert key([0, 12, 18]) == "check_l15_target_wrong"
    assert key([12, 15, 18]) == "check_l15_target_wrong"  # in the wrong order
    assert key([15, 12]) == "check_l15_target_length"
    assert key(15) == "check_l15_target_length" and key("15") == "check_l15_target_length"
    for bad in (["15", 12, 18], [True, 12, 18], [99, 12, 18], [-1, 12, 18], [2.5, 12, 18],
                [[15], 12, 18], [None, 12, 18], [float("nan"), 12, 18]):
        assert key(bad) == "check_l15_target_not_position", bad
    assert check(targets, None, puzzle, queries).key == "check_l15_target_setup"
    qk.setup(lang="en")


def _score(w, s, shift=1, last=False):
    picked = []
    for b, (f, r, n) in enumerate(zip(s.first, s.repeat, s.length)):
        i = np.arange(n if last else n - 1)
        picked.append(w[b, r + i, np.minimum(f + i + shift, r + i)])
    return float(np.concatenate(picked).mean())


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_check_induction_score(lang):
    qk.setup(lang=lang)
    check = c15.check_induction_score
    assert check(_score).ok is True
    assert check(...).ok is None
    assert check(lambda w, s: ...).ok is None
    assert check(lambda w, s: _score(w, s, shift=0)).key == "check_l15_score_duplicate"
    assert check(lambda w, s: float(np.diagonal(w, -1, 1, 2).mean())).key == (
        "check_l15_score_previous")
    assert check(lambda w, s: _score(w, s, last=True)).key == "check_l15_score_last_query"
    assert check(lambda w, s: ind.induction_score(w, s)).key == "check_l15_score_package"
    per_sequence = lambda w, s: float(np.mean([  # noqa: E731 - a mean of per-sequence means
        np.mean([w[b, r + i, f + i + 1] for i in range(n - 1)])
        for b, (f, r, n) in enumerate(zip(s.first, s.repeat, s.length))]))
    assert check(per_sequence).key == "check_l15_score_per_sequence"
    assert check(lambda w, s: 0.5).key == "check_l15_score_wrong"
    assert check(lambda w, s: "x").key == "check_l15_score_not_number"
    assert check(lambda w, s: 1 / 0).key == "check_l15_score_raised"
    assert check(3).key == "check_l15_score_not_function"
    qk.setup(lang="en")


def test_check_fixed_length(run, fixed_run):
    check = c15.check_fixed_length
    assert check(fixed_run, "b").ok is True
    assert check(fixed_run, " B ").ok is True
    assert check(fixed_run, "a").key == "check_l15_diagnosis_wrong_a"
    assert check(fixed_run, "c").key == "check_l15_diagnosis_wrong_c"
    assert check(run, "a").key == "check_l15_diagnosis_right_a_range"
    assert check(run, "b").ok is False
    untrained = ind.train(steps=1, eval_every=1, n_eval=10)
    assert check(untrained, "c").ok is True and check(untrained, "b").ok is False
    # a wrong choice is told what this run did, measured: the hint follows the verdict
    measured = {v: re.escape(text_of(f"check_l15_diagnosis_measured_{v}", trained="@", other="@",
                                  low="@", high="@"))
                .replace("@", ".+?") for v in ("a", "a_range", "b", "c")}
    for r, verdict, choice in ((fixed_run, "b", "a"), (run, "a_range", "b"), (untrained, "c", "a")):
        text = check(r, choice).message
        assert [v for v, m in measured.items() if re.search(m, text)] == [verdict], text
    assert check(fixed_run, "d").key == "check_l15_diagnosis_choice"
    assert check(None, "b").ok is None and check(fixed_run, ...).ok is None
    assert check("run", "b").key == "check_l15_diagnosis_not_run"


# --- plots and widgets ---------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "ko"])
def test_plots_draw_without_missing_glyphs(run, lang):
    import matplotlib.pyplot as plt

    qk.setup(lang=lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing Korean glyph is a warning
        fig = qk.plots.plot_induction_curves(run.history)
        fig.canvas.draw()
        assert len(fig.axes) == 2 and fig.axes[0].lines[0].get_xdata()[-1] == 1200
        fig = qk.plots.plot_induction_maps(run.snapshots[0], run.snapshots[-1], run.shown)
        fig.canvas.draw()
        assert len(fig.axes) == 4
        losses = ind.loss_per_position(run.model, run.shown.tokens)[0]
        ax = qk.plots.plot_loss_per_position(losses, run.shown)
        ax.figure.canvas.draw()
    plt.close("all")
    qk.setup(lang="en")


def test_the_explorer_follows_its_slider(run):
    panel = qk.widgets.induction_explorer(run)
    first = panel.live.image.value
    assert panel.state["step"] == 0
    panel.controls["step"].value = 1200
    assert panel.state["step"] == 1200
    np.testing.assert_array_equal(panel.state["maps"], run.snapshots[-1])
    assert panel.live.image.value != first
    assert "1200" in panel.caption.value


def test_the_progress_bar():
    bar = qk.widgets.induction_progress(100)
    bar.update({"step": 50, "repeat": 2.0, "previous_token": 0.5, "induction": 0.25})
    assert bar.bar.value == 50 and "0.25" in bar.label.value
    with pytest.raises((TypeError, ValueError), match="steps"):
        qk.widgets.induction_progress(0)
