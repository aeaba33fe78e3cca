"""The exercise checks of lesson 15 (induction heads).

Like every check of the course they never raise (``never_raises``) and give feedback in
the lesson's language, one message per kind of mistake; none accepts an answer already
on screen.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ... import induction as _induction
from ...induction import (
    InductionModel,
    InductionRun,
    Sequences,
    copying_targets,
    induction_score,
    loss_by_part,
    make_sequences,
)
from ...lang import t
from ...masks import causal_mask
from ._feedback import (
    Feedback,
    call_watched,
    never_raises,
    not_answered,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_fixed_length", "check_induction_score", "check_induction_targets"]


def _position(answer):
    """``answer`` as an int position, or None (bools, floats with a fraction, strings: no)."""
    if isinstance(answer, bool) or not isinstance(answer, numbers.Integral):
        if isinstance(answer, numbers.Real) and not isinstance(answer, bool) and (
                math.isfinite(answer) and float(answer).is_integer()):
            return int(answer)
        return None
    return int(answer)


def _classify(position, query, best, tokens):
    """The feedback key for ``position`` as the answer for ``query`` (``best`` is right)."""
    if position == best:
        return None
    if position > query:
        return "check_l15_target_future"
    if position == query:
        return "check_l15_target_itself"
    if position == query - 1:
        return "check_l15_target_previous"
    if tokens[position] == tokens[query]:
        return "check_l15_target_same"
    return "check_l15_target_wrong"


@never_raises
def check_induction_targets(answer, model, seq, queries, name: str = "my_positions") -> Feedback:
    """For each query position in ``queries``, the position layer 1's head attends to most
    in ``seq`` (one sequence), in the trained ``model``: a list, one position per query.
    Feedback names the first query answered wrong and the mistake (a later position, the
    query itself, the previous token, the earlier copy of the same token), never the answer.

    >>> from qkv_helpers import setup
    >>> setup(lang="en")
    >>> check_induction_targets(..., None, None, [0]).ok is None
    True
    """
    if not_answered(answer):
        return unanswered()
    if not (isinstance(model, InductionModel) and model.n_layers == 2
            and isinstance(seq, Sequences) and len(seq.tokens) == 1):
        return wrong("check_l15_target_setup")
    tokens = seq.tokens[0]
    queries = [int(q) for q in queries]
    n = len(tokens) - 1  # the model reads tokens[:-1]
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__") or (
            len(answer) != len(queries)):
        return wrong("check_l15_target_length", name=name, n=len(queries))
    positions = [_position(a) for a in answer]
    if any(p is None or not 0 <= p < n for p in positions):
        return wrong("check_l15_target_not_position", name=name, last=n - 1)
    rows = model.attention_maps(seq.tokens[:, :-1])[1, 0]  # (n, n): layer 1
    for position, query in zip(positions, queries):
        best = int(rows[query].argmax())
        key = _classify(position, query, best, tokens)
        if key is not None:
            return wrong(key, name=name, answer=position, query=query, token=int(tokens[query]))
    weights = ", ".join(f"{rows[q, p]:.2f}" for q, p in zip(queries, positions))
    return right("check_l15_target_right", name=name, answer=positions, queries=queries,
                 weights=weights)


def _random_maps(rng, seqs):
    """Causal attention maps ``(B, n, n)`` with random weights, for ``seqs``."""
    n = seqs.tokens.shape[1]
    scores = rng.normal(0, 2, (len(seqs.tokens), n, n))
    scores = np.where(causal_mask(n), scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _variants(maps, seqs) -> dict:
    """The scores of the usual mistakes, by feedback key."""
    rows, queries, keys = copying_targets(seqs)
    last_rows, last_queries, last_keys = [], [], []
    for b, (f, r, s) in enumerate(zip(seqs.first, seqs.repeat, seqs.length)):
        i = np.arange(s)
        last_rows.append(np.full(s, b))
        last_queries.append(r + i)
        last_keys.append(np.minimum(f + i + 1, r + i))
    last = (np.concatenate(last_rows), np.concatenate(last_queries),
            np.concatenate(last_keys))
    return {
        "check_l15_score_duplicate": maps[rows, queries, keys - 1].mean(),
        "check_l15_score_previous": np.diagonal(maps, -1, 1, 2).mean(),
        "check_l15_score_last_query": maps[last].mean(),
        "check_l15_score_sum": maps[rows, queries, keys].sum(),
        "check_l15_score_per_sequence": np.mean([maps[rows, queries, keys][rows == b].mean()
                                                 for b in range(len(seqs.tokens))]),
    }


def _forbidden_code() -> set:
    return {_induction.induction_score.__code__, _induction.copying_targets.__code__}


@never_raises
def check_induction_score(fn, name: str = "my_induction_score") -> Feedback:
    """``fn(weights, seqs)`` → the induction score, tried on new sequences and random
    causal maps against :func:`~qkv_helpers.induction.induction_score`; the usual
    mistakes (the earlier copy itself, the previous token, the repeat's last query, a sum)
    each get their own feedback.

    >>> from qkv_helpers import setup
    >>> setup(lang="en")
    >>> check_induction_score(lambda w, s: 0.5).ok
    False
    """
    if not_answered(fn):
        return unanswered()
    if not callable(fn):
        return wrong("check_l15_score_not_function", name=name)
    rng = np.random.default_rng(1515)
    expected = None
    for lengths in ((8, 16), (3, 6)):
        seqs = make_sequences(6, rng, repeat_lengths=lengths, length=2 * lengths[1] + 3)
        maps = _random_maps(rng, seqs)  # (B, n, n)
        try:
            got, used = call_watched(fn, (maps.copy(), Sequences(*(a.copy() for a in seqs))),
                                      _forbidden_code())
        except Exception as error:  # noqa: BLE001 - the learner's function
            return wrong("check_l15_score_raised", name=name,
                         error=f"{type(error).__name__}: {error}"[:160])
        if used:
            return wrong("check_l15_score_package", name=name)
        if not_answered(got):
            return unanswered()
        try:
            value = float(np.asarray(got, dtype=float).item())
        except (TypeError, ValueError, OverflowError):
            got = repr(got)
            return wrong("check_l15_score_not_number", name=name,
                         got=got if len(got) <= 60 else got[:59] + "…")
        expected = induction_score(maps, seqs)
        if not math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12):
            for key, variant in _variants(maps, seqs).items():
                if math.isclose(value, variant, rel_tol=1e-9, abs_tol=1e-12):
                    return wrong(key, name=name)
            return wrong("check_l15_score_wrong", name=name, got=f"{value:.4f}",
                         expected=f"{expected:.4f}")
    return right("check_l15_score_right", name=name, expected=f"{expected:.4f}")


def _other_lengths(run: InductionRun):
    """The lengths of the lesson's range (8 to 16) the run was not trained on."""
    low, high = run.repeat_lengths
    others = [n for n in range(_induction.REPEAT_LENGTHS[0], _induction.REPEAT_LENGTHS[1] + 1)
              if not low <= n <= high]
    return others


@never_raises
def check_fixed_length(run, diagnosis, name: str = "my_diagnosis") -> Feedback:
    """What a run trained on repeats of one length learned, read from its losses.

    ``"c"`` nothing yet: the loss on the repeat is not 1 nat below chance at the trained
    lengths (:func:`~qkv_helpers.induction.cliff_step`'s criterion), so neither copying
    nor a shortcut. Past that, a run trained on one length is tested at the other lengths
    of 8 to 16: ``"b"`` a position shortcut if it fails there (loss above chance − 0.5),
    ``"a"`` copying by content if not. A run trained on several lengths is tested at each
    of them, since no one distance back serves two lengths: ``"a"`` if each is 1 nat below
    chance. The truth is measured on ``run`` itself, so a learner who changes the training
    gets the verdict of their own run.
    """
    if not_answered(run) or not_answered(diagnosis):
        return unanswered()
    if not isinstance(run, InductionRun):
        return wrong("check_l15_diagnosis_not_run")
    if not isinstance(diagnosis, str) or diagnosis.strip().lower() not in ("a", "b", "c"):
        return wrong("check_l15_diagnosis_choice", name=name)
    diagnosis = diagnosis.strip().lower()
    rng = np.random.default_rng(1516)
    low, high = run.repeat_lengths
    chance = math.log(run.model.vocab_size)

    def repeat_loss(lengths):
        return loss_by_part(run.model, make_sequences(100, rng, lengths))["repeat"]

    trained = repeat_loss(run.repeat_lengths)
    if low == high:  # one length: test it at the others
        other = max(repeat_loss((n, n)) for n in _other_lengths(run))
        happened = "c" if trained > chance - 1 else "b" if other > chance - 0.5 else "a"
    else:  # several: each trained length must be predicted
        other = max(repeat_loss((n, n)) for n in range(low, high + 1))
        happened = "c" if max(trained, other) > chance - 1 else "a_range"
    if happened == "c":
        trained = max(trained, other) if low < high else trained  # the worst trained length
    values = {"trained": f"{trained:.2f}", "other": f"{other:.1f}", "low": low, "high": high}
    if diagnosis != happened[0]:  # what is wrong with the choice, then what this run did
        measured = t(f"check_l15_diagnosis_measured_{happened}", **values)
        return wrong(f"check_l15_diagnosis_wrong_{diagnosis}", name=name, measured=measured)
    return right(f"check_l15_diagnosis_right_{happened}", back=low - 1, **values)
