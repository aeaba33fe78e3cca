"""Lesson 09's exercise checks."""

from __future__ import annotations

from ._answers import _close_number, _number, _show
from ._feedback import Feedback, never_raises, right, wrong


@never_raises
def check_kv_cache_bytes(answer, *, layers: int, kv_heads: int, head_dim: int, tokens: int,
                         batch: int, bytes_per_value: int, query_heads: int | None = None,
                         name: str = "my_bytes") -> Feedback:
    """Lesson 09: the bytes of a KV cache, ``2 · layers · kv_heads · head_dim · tokens ·
    batch · bytes_per_value``.

    Recognises the usual slips: K or V (or the 2 bytes of fp16) forgotten, 4 bytes per
    value, the batch or the layers left out, the query heads used instead of the K/V
    heads, an answer in GiB or in bits.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> config = dict(layers=2, kv_heads=4, head_dim=4, tokens=10, batch=1, bytes_per_value=4)
    >>> check_kv_cache_bytes(2560, **config)
    ✅ Right! my_bytes = 2,560 bytes (2.50 KiB).
    >>> check_kv_cache_bytes(1280, **config).ok
    False
    >>> check_kv_cache_bytes(..., **config).ok is None
    True
    """
    from ...kv_cache.arithmetic import format_bytes, kv_cache_bytes

    expected = kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch, bytes_per_value)
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if _close_number(got, expected, 0.0) or got == expected:  # exact: a whole number of bytes
        return right("check_l09_right", name=name, bytes=f"{expected:,}",
                     readable=format_bytes(expected))
    try:
        shown = f"{float(got):,.0f}"
        ratio = f"{float(got) / expected:.3g}"
    except OverflowError:
        return wrong("check_l09_huge", name=name)
    if got <= 0:  # "-2.33e-10 times the right number" would tell nothing
        return wrong("check_l09_not_positive", name=name, got=_show(got))
    slips = [  # (what the answer would be, message key), most telling first
        (expected / 2**30, "check_l09_gib"),
        (expected / 1e9, "check_l09_gib"),
        (expected * 8, "check_l09_bits"),
        (expected / 2, "check_l09_half"),
        (expected * 2, "check_l09_double"),
        (expected / batch, "check_l09_no_batch"),
        (expected / layers, "check_l09_no_layers"),
        (expected / bytes_per_value, "check_l09_values"),
    ]
    if query_heads is not None and query_heads != kv_heads:
        slips.insert(0, (expected * query_heads / kv_heads, "check_l09_query_heads"))
    for value, key in slips:
        if value != expected and _close_number(float(got), value, 1e-9):
            return wrong(key, name=name, got=_show(got), bytes_per_value=bytes_per_value,
                         batch=batch, layers=layers, kv_heads=kv_heads,
                         query_heads=query_heads)
    if any(float(got) == float(f"{expected:.{digits}g}") for digits in range(1, 10)):
        return wrong("check_l09_close", name=name, got=shown)  # 4.29e9 for 4,294,967,296
    if ratio == "1":  # a few bytes off: "1 times the right number" would read as right
        return wrong("check_l09_nearly", name=name, got=shown)
    return wrong("check_l09_wrong", name=name, got=shown, ratio=ratio)


@never_raises
def check_max_batch(answer, *, memory_gib: float, layers: int, kv_heads: int, head_dim: int,
                    tokens: int, bytes_per_value: int, query_heads: int | None = None,
                    earlier_tokens: int | None = None, name: str = "my_batch") -> Feedback:
    """Lesson 09: how many sequences of ``tokens`` tokens fit in ``memory_gib`` GiB of KV
    cache: the largest whole batch, ``floor(memory / bytes per sequence)``.

    ``earlier_tokens``: the tokens per sequence of the exercise before, if it had others
    (an answer counted with those gets its own message).

    >>> config = dict(layers=32, kv_heads=8, head_dim=128, tokens=12000, bytes_per_value=2)
    >>> check_max_batch(27, memory_gib=40, **config).ok
    True
    >>> check_max_batch(28, memory_gib=40, **config).ok
    False
    >>> check_max_batch(25, memory_gib=40, **config).key  # 40 GB taken for 40 GiB
    'check_l09_gb_for_gib'
    >>> check_max_batch(40, memory_gib=40, earlier_tokens=8192, **config).key
    'check_l09_batch_earlier_tokens'
    """
    from ...kv_cache.arithmetic import kv_cache_bytes

    per_sequence = kv_cache_bytes(layers, kv_heads, head_dim, tokens, 1, bytes_per_value)
    expected = int(memory_gib * 2**30 // per_sequence)
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if isinstance(got, float):
        if not got.is_integer():
            if int(got // 1) == expected:  # 27.3 for 27: the quotient, not rounded down
                return wrong("check_l09_batch_not_floored", name=name, got=_show(got))
            return wrong("check_l09_whole_batch", name=name)
        got = int(got)
    if got == expected:
        return right(name=name)
    if got == expected + 1:
        return wrong("check_l09_rounded_up", name=name)
    memory = memory_gib * 2**30

    def fits(bytes_each: float, memory: float = memory) -> int:
        return int(memory // bytes_each)

    slips = [  # (what the answer would be, message key), most telling first
        (fits(per_sequence, memory_gib * 1e9), "check_l09_gb_for_gib"),
        (fits(per_sequence / 2), "check_l09_batch_half"),
        (fits(per_sequence * 2), "check_l09_batch_double"),
        (fits(per_sequence / layers), "check_l09_batch_one_layer"),
        (fits(per_sequence * 8), "check_l09_batch_bits"),
    ]
    if query_heads is not None and query_heads != kv_heads:  # every query head cached
        slips.insert(1, (fits(per_sequence * query_heads / kv_heads),
                         "check_l09_batch_query_heads"))
    if earlier_tokens is not None and earlier_tokens != tokens:  # the tokens of part 1
        slips.insert(0, (fits(per_sequence / tokens * earlier_tokens),
                         "check_l09_batch_earlier_tokens"))
    for value, key in slips:
        if value != expected and got == value:
            return wrong(key, name=name, got=got, memory_gib=_show(memory_gib),
                         bytes_per_value=bytes_per_value, layers=layers,
                         query_heads=query_heads, kv_heads=kv_heads, tokens=f"{tokens:,}",
                         earlier_tokens=earlier_tokens)
    return wrong("check_wrong_value", name=name, got=_show(got))
