"""What measures the math: memory, time and costs (the layer above the ideas' modules).

- :mod:`~qkv_helpers.measure.kv_cache_experiments` -- lesson 09: decoding with and
  without a KV cache on a small decoder, timed and measured;
- :mod:`~qkv_helpers.measure.long_context` -- lesson 13: plain against tiled attention,
  sliding windows, paged serving, the roofline;
- :mod:`~qkv_helpers.measure.attention_backward` -- lesson 14: what the backward pass
  keeps, P or only the log-sum-exp.

numpy only; they import the math, never the classroom.
"""
