"""torch.set_default_dtype / get_default_dtype: factories, promotion and printing follow it."""

from __future__ import annotations

import pytest

import detachviz.torch as dv
from detachviz.engine import state as session

# expression on a torch namespace -> the dtype it makes under a float64 default
EXPRESSIONS = {
    "tensor-float": lambda t: t.tensor([1.5]).dtype,
    "tensor-int": lambda t: t.tensor([1]).dtype,
    "legacy-Tensor": lambda t: t.Tensor([1.0]).dtype,
    "legacy-FloatTensor": lambda t: t.FloatTensor([1.0]).dtype,
    "ones": lambda t: t.ones(2).dtype,
    "randn": lambda t: t.randn(2).dtype,
    "arange-float": lambda t: t.arange(3.0).dtype,
    "full-int": lambda t: t.full((1,), 2).dtype,
    "linspace": lambda t: t.linspace(0, 1, 3).dtype,
    "int-true-div": lambda t: (t.tensor([1, 2]) / 2).dtype,
    "int-times-float": lambda t: (t.tensor([1, 2]) * 1.5).dtype,
    "int-exp": lambda t: t.tensor([1, 2]).exp().dtype,
    "float32-times-float": lambda t: (t.ones(2, dtype=t.float32) * 1.5).dtype,
    "float32-plus-0d-default": lambda t: (t.ones(2, dtype=t.float32) + t.tensor(1.0)).dtype,
    "linear-weight": lambda t: t.nn.Linear(2, 2).weight.dtype,
}


@pytest.fixture
def float64_default():
    dv.set_default_dtype(dv.float64)
    try:
        yield
    finally:
        session.reset()


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_dtypes_follow_the_default(name, float64_default):
    ours = EXPRESSIONS[name](dv)
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    try:
        theirs = EXPRESSIONS[name](torch)
    finally:
        torch.set_default_dtype(torch.float32)
    assert repr(ours) == repr(theirs)


def test_printing_marks_the_non_default_float(float64_default):
    assert dv.get_default_dtype() is dv.float64
    assert repr(dv.tensor([1.5])) == "tensor([1.5000])"
    assert repr(dv.tensor([1.0], dtype=dv.float32)) == "tensor([1.], dtype=torch.float32)"


def test_reset_restores_float32():
    dv.set_default_dtype(dv.float16)
    session.reset()
    assert dv.get_default_dtype() is dv.float32 and dv.ones(1).dtype is dv.float32


def test_only_floating_types():
    with pytest.raises(TypeError, match="only floating-point types are supported"):
        dv.set_default_dtype(dv.int64)
    assert dv.get_default_dtype() is dv.float32
