"""``make train``: retrain lesson 14's translator from its seed and write the committed weights.

Writes ``qkv_helpers/data/translator.npz`` (read by lessons 08 and 09 through
``qkv_helpers.translator.load_trained``) and prints the training curve. Training is
deterministic: ``tests/core/test_translator.py`` checks that it reproduces the file.
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qkv_helpers.translator import TRAINED_WEIGHTS, TRAINING_SETTINGS, TrainingRun, train


def save_trained(run: TrainingRun, path=TRAINED_WEIGHTS) -> Path:
    """Write ``run``'s weights, settings and curve to ``path`` (a compressed ``.npz``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    m = run.model
    meta = {"vocab_size": m.vocab_size, "d_model": m.d_model, "n_heads": m.n_heads,
            "d_ff": m.d_ff, "encoder_self_attention": m.encoder_self_attention,
            "steps": run.steps, "history": run.history}
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **m.params)
    return path


def main() -> None:
    run = train(**TRAINING_SETTINGS)
    path = save_trained(run)
    print(f"{'step':>5} {'loss':>7} {'exact match':>12} {'alignment':>10}")
    for r in run.history:
        print(f"{r['step']:5d} {r['loss']:7.3f} {r['exact_match']:12.2f} {r['alignment']:10.3f}")
    print(f"{run.steps} steps in {run.seconds:.2f} s; wrote {path.relative_to(Path.cwd())} "
          f"({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    assert TRAINED_WEIGHTS.parent.name == "data"
    main()
