"""qkv_helpers.classroom.source_code: a function's code without its docstring (lesson 14)."""

import inspect

import pytest

import qkv_helpers as qk
from qkv_helpers import backprop
from qkv_helpers.classroom.source_code import code_without_docstring


def with_docstring(x):
    """One line.

    And more, with "quotes" and a blank line above.
    """
    y = x + 1  # a comment stays
    return y


def without_docstring(x):
    return "not a docstring"  # a string, but returned


class Holder:
    def method(self):
        """A method's docstring."""
        return 1


def test_the_docstring_is_left_out_and_the_rest_kept_exactly():
    assert code_without_docstring(with_docstring) == (
        "def with_docstring(x):\n"
        "    y = x + 1  # a comment stays\n"
        "    return y\n")


def test_a_function_without_docstring_is_unchanged():
    assert code_without_docstring(without_docstring) == inspect.getsource(without_docstring)


def test_a_method_is_dedented_whether_bound_or_not():
    expected = "def method(self):\n    return 1\n"
    assert code_without_docstring(Holder.method) == expected
    assert code_without_docstring(Holder().method) == expected


def test_a_decorated_package_function_keeps_its_decorator_and_body():
    code = code_without_docstring(backprop.attention_backward)
    assert code.startswith("@validate.by(")
    assert '"""' not in code and "FlashAttention" not in code
    assert "d_s = softmax_backward(d_p, p)" in code
    assert code.rstrip().endswith("return d_q, d_k, d_v")


@pytest.mark.parametrize("lang, words", [("en", "fn"), ("ko", "fn")])
def test_not_a_function_is_a_clear_error(lang, words):
    qk.set_language(lang)
    try:
        with pytest.raises(TypeError, match=words):
            code_without_docstring(len)
    finally:
        qk.set_language("en")
