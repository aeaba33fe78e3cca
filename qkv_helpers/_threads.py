"""``threadpool_limits``: one BLAS thread for a training run or a timing, loaded when used.

threadpoolctl inspects the loaded BLAS libraries when imported; the modules that train
(:mod:`~qkv_helpers.translator`, :mod:`~qkv_helpers.induction`) import this function
instead, so ``import qkv_helpers`` does not load threadpoolctl.
"""

from __future__ import annotations


def threadpool_limits(limits=None, user_api=None):
    """:func:`threadpoolctl.threadpool_limits`: a context manager (``with ...:``)."""
    from threadpoolctl import threadpool_limits as limits_of_threadpoolctl

    return limits_of_threadpoolctl(limits=limits, user_api=user_api)
