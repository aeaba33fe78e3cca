"""Lesson 14's translator: training reproduces the committed weights; it translates the
held-out sentences; its cross-attention is the alignment; TinyTransformer runs it."""

import numpy as np
import pytest

from qkv_helpers import translator as tr
from qkv_helpers.toy_corpus import Pair, Vocabulary, build_sentence, make_corpus


@pytest.fixture(scope="module")
def trained():
    return tr.load_trained()


def test_training_from_the_seed_reproduces_the_committed_weights(trained):
    model, meta = trained
    run = tr.train(**tr.TRAINING_SETTINGS)
    assert run.steps == meta["steps"] == 300
    for name, value in model.params.items():
        np.testing.assert_allclose(run.model.params[name], value, rtol=1e-4, atol=1e-5,
                                   err_msg=name)
    got = [(r["step"], r["exact_match"], round(r["alignment"], 3)) for r in run.history]
    assert got == [(r["step"], r["exact_match"], round(r["alignment"], 3))
                   for r in meta["history"]]
    # pinned: the curve of the committed weights (100 held-out sentences, every 10 steps)
    first_95 = next(r["step"] for r in run.history if r["exact_match"] >= 0.95)
    assert first_95 == 120
    assert run.history[0]["alignment"] < 0.25  # chance: about one in 8 source tokens
    assert (run.history[-1]["exact_match"], round(run.history[-1]["alignment"], 3)) == (1.0, 0.991)
    # alignment forms before accuracy does
    formed = next(r["step"] for r in run.history if r["alignment"] >= 0.8)
    assert formed < first_95 and run.history[formed // 10]["exact_match"] < 0.5


def test_the_trained_model_translates_unseen_combinations(trained):
    model, _ = trained
    corpus, vocab = make_corpus(), Vocabulary()
    assert tr.exact_match(model, corpus.heldout, vocab) >= 0.95
    weights = model.cross_attention(tr.make_batch(corpus.heldout, vocab))
    assert tr.alignment_agreement(weights, corpus.heldout) >= 0.9


def test_alignment_agreement_by_hand():
    pair = Pair(("the", "cat", "sat"), ("고양이가", "앉았다"), (1, 2))
    w = np.zeros((1, 2, 3, 4))  # (B, H, n_tgt, n_src): rows 0, 1 Korean, row 2 <eos>
    w[0, 0, 0, 1] = w[0, 0, 1, 0] = 1  # head 0: right, wrong
    w[0, 1, 0, 1] = w[0, 1, 1, 2] = 1  # head 1: right, right
    w[0, :, 2, 3] = 1  # the <eos> row is not counted
    assert tr.alignment_agreement(w, [pair], heads=0) == 0.5
    assert tr.alignment_agreement(w, [pair], heads=1) == 1.0
    assert tr.alignment_agreement(w, [pair]) == 0.5  # row 1 averaged: a tie of 0 and 2, argmax 0


def test_tiny_transformer_holds_the_trained_weights(trained):
    model, _ = trained
    vocab = Vocabulary()
    tiny = tr.to_tiny_transformer(model)
    pair = build_sentence("tiger", "lay", "under", "bridge", "white", "black")
    batch = tr.make_batch([pair], vocab)
    ours, _ = model.forward(batch)
    theirs = tiny.forward(batch.target_in[0], source_ids=batch.source[0])
    np.testing.assert_allclose(theirs, ours[0], rtol=1e-4, atol=1e-4)
    n = len(pair.korean) + 1
    cached = tiny.generate([vocab.bos], n, source_ids=batch.source[0])
    uncached = tiny.generate([vocab.bos], n, source_ids=batch.source[0], use_cache=False)
    assert (cached.ids == uncached.ids).all()
    assert vocab.decode(cached.ids) == [*pair.korean, "<eos>"]


def test_lesson_08_example_gives_the_trained_cross_attention(trained):
    from qkv_helpers.attention import scaled_dot_product_attention

    model, _ = trained
    ex = tr.trained_translation_example(model)
    pair = build_sentence("cat", "sat", "on", "mat")
    expected = model.cross_attention(tr.make_batch([pair], Vocabulary()))[0, 0, :4]  # (4, 7)
    got = scaled_dot_product_attention(ex.q, ex.k, ex.v).weights
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert [ex.source_tokens[j] for j in got.argmax(axis=1)] == ["cat", "mat", "on", "sat"]
    assert tuple(ex.alignment) == pair.alignment
    with pytest.raises(ValueError, match="one head"):
        tr.trained_translation_example(tr.Translator(len(Vocabulary()), n_heads=2))
