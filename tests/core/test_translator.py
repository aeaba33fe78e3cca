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
    assert first_95 == 130
    assert run.history[0]["alignment"] < 0.25  # chance: about one in 8 source tokens
    assert (run.history[-1]["exact_match"], round(run.history[-1]["alignment"], 3)) == (1.0, 0.955)
    # alignment forms before accuracy does
    formed = next(r["step"] for r in run.history if r["alignment"] >= 0.8)
    assert formed == 90 and run.history[formed // 10]["exact_match"] == 0.5
    assert (run.history[6]["step"], run.history[6]["exact_match"]) == (60, 0.02)
    assert run.history[6]["alignment"] > 0.5


@pytest.mark.parametrize("seed, first_95, alignment", [(1, 110, 1.0), (2, 120, 0.927)])
def test_training_reaches_the_target_from_other_seeds(seed, first_95, alignment):
    # every seed draws its own corpus, batches and initial weights. At lr 2e-2 seed 2 stalls at
    # 91% exact match (the postposition's row reads <eos> in half the held-out sentences and
    # guesses from the place); at lr 1e-2 seeds 0-4 all reach 100%
    run = tr.train(**{**tr.TRAINING_SETTINGS, "seed": seed})
    assert next(r["step"] for r in run.history if r["exact_match"] >= 0.95) == first_95
    assert run.history[-1]["exact_match"] == 1.0
    assert round(run.history[-1]["alignment"], 3) == alignment


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
    tiny = model.as_tiny_transformer()
    pair = build_sentence("tiger", "lay", "under", "bridge", "white", "red")
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


def test_the_rows_that_miss_their_gold_word_are_the_models_defaults(trained):
    # lesson 14, section 5: almost every row whose cross-attention misses its gold word is the
    # subject row of "duck" (it reads the first "the") or the verb row of "stood" (it reads
    # <eos>): tokens that carry no word, and the model answers 오리가 / 섰다 when it gets nothing
    from collections import Counter

    model, _ = trained
    corpus, vocab = make_corpus(), Vocabulary()
    weights = model.cross_attention(tr.make_batch(corpus.heldout, vocab))[:, 0]
    missed = Counter()
    for w, pair in zip(weights, corpus.heldout):
        source = [*pair.english, "<eos>"]
        for i, gold in enumerate(pair.alignment):
            if w[i].argmax() != gold:
                missed[pair.english[gold], source[w[i].argmax()]] += 1
    assert missed.most_common(2) == [(("stood", "<eos>"), 35), (("duck", "the"), 18)]
    # the one row left: the verb row of the only held-out sentence translated wrong
    assert sum(missed.values()) == 54 and missed["stood", "big"] == 1
    wrong = [p for p, t in zip(corpus.heldout, model.translate(corpus.heldout, vocab))
             if list(t) != list(p.korean)]
    assert [p.english for p in wrong] == [("the", "chicken", "stood", "under", "the", "big",
                                           "chair")]
    # only the first "the" (the same vector in every sentence) or only <eos> left as keys
    held = corpus.heldout[0]
    assert held.words[1] == "duck"
    batch = tr.make_batch([held], vocab)
    memory = model.encode(batch.source)
    for keep, word in ((0, "오리가"), (len(held.english), "섰다")):
        only = np.zeros_like(batch.source)
        only[0, keep] = batch.source[0, keep]
        logits = model.decode(batch.target_in[:, :2], memory, only)
        assert vocab.decode(logits[0].argmax(-1)) == [word, word]


def test_twice_the_learning_rate_stalls_seed_2():
    # lesson 14, section 4: at lr 0.02 seed 2 stops at 91% exact match; the postposition's
    # row reads <eos> (which holds no preposition) in half the held-out sentences
    run = tr.train(**{**tr.TRAINING_SETTINGS, "seed": 2, "lr": 2e-2})
    # the lesson's claims (the last figure, 104 sentences) are the same on every CPU kernel; the
    # peak on the way is not: at this unstable lr float64's last bits grow into 0.92 (SkylakeX)
    # or 0.93 (Prescott), measured with make test-floors
    assert 0.91 <= max(r["exact_match"] for r in run.history) < 0.95
    assert run.history[-1]["exact_match"] == 0.91
    corpus, vocab = run.corpus, run.vocab
    weights = run.model.cross_attention(tr.make_batch(corpus.heldout, vocab))[:, 0]
    on_eos = sum(int(w[len(p.korean) - 2].argmax()) == len(p.english)
                 for w, p in zip(weights, corpus.heldout))
    assert on_eos == 104 and len(corpus.heldout) == 200


def test_alignment_by_role_splits_the_agreement_by_the_gold_words_role(trained):
    model, _ = trained
    corpus, vocab = make_corpus(), Vocabulary()
    pairs = corpus.heldout[:60]
    weights = model.cross_attention(tr.make_batch(pairs, vocab))
    roles = tr.alignment_by_role(weights, pairs)
    # the roles' rows add up to all Korean rows, and their hits to alignment_agreement's
    n_rows = sum(len(p.korean) for p in pairs)
    assert sum(n for _, n in roles.values()) == n_rows
    assert roles["verb"][1] == roles["subject"][1] == roles["place"][1] == len(pairs)
    assert sum(a * n for a, n in roles.values()) / n_rows == pytest.approx(
        tr.alignment_agreement(weights, pairs))
    # by hand: the verb row looks at the verb only if its weight is moved there
    pair = build_sentence("cat", "sat", "on", "mat")  # 고양이가 매트 위에 앉았다
    w = np.zeros((1, 1, 5, 7))
    w[0, 0, range(4), pair.alignment] = 1
    assert tr.alignment_by_role(w, [pair]) == {
        "subject": (1.0, 1), "place": (1.0, 1), "postposition": (1.0, 1), "verb": (1.0, 1)}
    w[0, 0, 3] = np.eye(7)[6]  # 앉았다 → <eos>
    assert tr.alignment_by_role(w, [pair])["verb"] == (0.0, 1)


def _train_in_a_subprocess(settings: str, **env_vars: str):
    """train(<settings>) in a fresh Python with ``env_vars`` set before numpy loads BLAS:
    its parameters, its curve, and the BLAS kernel threadpoolctl reports."""
    import io
    import json
    import os
    import subprocess
    import sys

    code = ("import sys, json, numpy as np\n"
            "from threadpoolctl import threadpool_info\n"
            "from qkv_helpers import translator\n"
            f"run = translator.train({settings})\n"
            "kernels = [i.get('architecture') for i in threadpool_info()]\n"
            "np.savez(sys.stdout.buffer, history=json.dumps(run.history),\n"
            "         kernels=json.dumps(kernels), **run.model.params)\n")
    env = dict(os.environ, **env_vars)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          check=True)
    data = np.load(io.BytesIO(done.stdout))
    extra = {"history", "kernels"}
    params = {name: data[name] for name in data.files if name not in extra}
    return params, json.loads(str(data["history"])), json.loads(str(data["kernels"]))


def test_training_prints_the_same_numbers_under_another_blas_kernel():
    """Issue 34: in float32, OpenBLAS's Prescott or Sandybridge kernel (an older laptop's)
    changed the trained parameters by up to 0.19 and lesson 14's printed curve in the 2nd
    digit. In float64 the kernels' different summation orders stay near 1e-12."""
    from threadpoolctl import threadpool_info

    if not any(i.get("internal_api") == "openblas" for i in threadpool_info()):
        pytest.skip("numpy does not use OpenBLAS here: OPENBLAS_CORETYPE has no effect")
    settings = "seed=0, steps=150, eval_every=30"
    here = tr.train(seed=0, steps=150, eval_every=30)
    rounded = [(r["step"], round(r["loss"], 3), r["exact_match"], round(r["alignment"], 3))
               for r in here.history]
    here_kernels = [i.get("architecture") for i in threadpool_info()]
    other_kernels = []
    for kernel in ("Prescott", "Sandybridge"):
        params, history, kernels = _train_in_a_subprocess(settings, OPENBLAS_CORETYPE=kernel)
        other_kernels.append(kernels)
        assert [(r["step"], round(r["loss"], 3), r["exact_match"], round(r["alignment"], 3))
                for r in history] == rounded, kernel
        for name, value in here.model.params.items():
            np.testing.assert_allclose(params[name], value, rtol=0, atol=1e-9,
                                       err_msg=f"{kernel}: {name}")
    assert any(kernels != here_kernels for kernels in other_kernels), (here_kernels,
                                                                       other_kernels)


def test_training_takes_the_same_path_with_more_blas_threads():
    """With two BLAS threads numpy's products round differently: in float32 the run of
    lesson 14's exercise took another path (the verb's row peaked on "the", not "<eos>").
    In float64 (train's default) it does not; and train() keeps BLAS at one thread anyway,
    which is faster for these small products."""
    settings = "seed=0, encoder_self_attention=True, n_heads=2, eval_every=300"
    two_threads, _, _ = _train_in_a_subprocess(
        settings, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2", MKL_NUM_THREADS="2")
    here = tr.train(seed=0, encoder_self_attention=True, n_heads=2, eval_every=300)
    assert set(two_threads) == set(here.model.params)
    for name, value in here.model.params.items():
        np.testing.assert_array_equal(two_threads[name], value, err_msg=name)


@pytest.mark.parametrize("seed, on_100, on_200", [(1, 1.0, 0.995), (3, 0.99, 0.99)])
def test_twice_the_learning_rate_other_seeds_fall_just_short(seed, on_100, on_200):
    # lesson 14, section 4: seed 2 is not the only seed short of 100% at lr 0.02
    run = tr.train(**{**tr.TRAINING_SETTINGS, "seed": seed, "lr": 2e-2})
    assert run.history[-1]["exact_match"] == on_100
    assert tr.exact_match(run.model, run.corpus.heldout, run.vocab) == on_200
