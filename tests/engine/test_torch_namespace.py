"""The compat `torch` namespace: names, dtypes and inference, promotion, legacy constructors,
unsupported names, conversions."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as torch
from detachviz.engine.size import Size


def test_unsupported_names_raise_clear_attribute_errors():
    with pytest.raises(AttributeError, match="^torch.fft is not supported by detachviz$"):
        torch.fft  # noqa: B018
    with pytest.raises(AttributeError, match="^Tensor.stft is not supported by detachviz$"):
        torch.ones(2).stft  # noqa: B018
    assert not hasattr(torch.ones(2), "stft") and not hasattr(torch.Tensor, "stft")
    names = dir(torch.ones(2))  # what a notebook completes
    assert "stft" not in names and {"sum", "backward", "grad", "_data"} <= set(names)


def test_a_name_torch_lacks_too_keeps_pythons_error():
    """A typo is no unsupported feature: Python's message, as under torch (and, printed, its
    "Did you mean")."""
    with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'sizee'$"):
        torch.ones(2).sizee  # noqa: B018


def test_autograd_submodule_and_variable():
    assert torch.autograd.grad is not None
    v = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    assert isinstance(v, torch.Tensor) and v.requires_grad and v.is_leaf


@pytest.mark.parametrize(
    "data,dtype",
    [
        ([1, 2], "int64"),
        ([1.0, 2], "float32"),
        ([True], "bool"),
        (3, "int64"),
        (2.5, "float32"),
        (np.arange(3.0), "float64"),
        (np.arange(3, dtype=np.int32), "int32"),
    ],
)
def test_tensor_dtype_inference(data, dtype):
    assert torch.tensor(data).dtype.name == dtype


PROMOTIONS = [
    (lambda t: t.tensor([1, 2]) * 1.5, "float32"),
    (lambda t: t.tensor([1, 2]) / t.tensor([1, 2]), "float32"),
    (lambda t: t.tensor([1, 2]) * 2, "int64"),
    (lambda t: t.ones(3) * t.tensor(2.0, dtype=t.float64), "float32"),
    (lambda t: t.ones(3, dtype=t.long) * t.tensor(2.0, dtype=t.float64), "float64"),
    (lambda t: t.ones(3) * t.ones(3, dtype=t.float64), "float64"),
    (lambda t: t.ones(3) + True, "float32"),
    (lambda t: t.ones(3, dtype=t.bool) + 1, "int64"),
    (lambda t: t.ones(3, dtype=t.bool) + True, "bool"),
    (lambda t: t.ones(3, dtype=t.int32) + t.ones(3, dtype=t.int64), "int64"),
    (lambda t: t.ones(3, dtype=t.long) ** 2, "int64"),
    (lambda t: t.ones(3, dtype=t.long) ** 2.5, "float32"),
    (lambda t: 2 ** t.ones(3, dtype=t.long), "int64"),
    (lambda t: 2.5 ** t.ones(3, dtype=t.long), "float32"),
    (lambda t: t.ones(3) > 1, "bool"),
    (lambda t: t.arange(5), "int64"),
    (lambda t: t.arange(5.0), "float32"),
    (lambda t: t.linspace(0, 1, 5), "float32"),
    (lambda t: t.tensor([1, 2]).sum(), "int64"),
    (lambda t: t.tensor([True, False]).sum(), "int64"),
    (lambda t: t.ones(2).double(), "float64"),
    (lambda t: t.ones(2).long(), "int64"),
    (lambda t: t.ones(2).to(t.float64), "float64"),
    (lambda t: t.tensor([1, 2]).float().exp(), "float32"),
    (lambda t: t.tensor([1, 2]).exp(), "float32"),
]


@pytest.mark.parametrize("i", range(len(PROMOTIONS)))
def test_type_promotion(i):
    fn, expected = PROMOTIONS[i]
    assert fn(torch).dtype.name == expected


@pytest.mark.parametrize("i", range(len(PROMOTIONS)))
def test_type_promotion_matches_torch(rt, i):
    fn, _ = PROMOTIONS[i]
    assert repr(fn(torch).dtype) == repr(fn(rt).dtype)


def test_legacy_constructors_and_isinstance():
    f = torch.FloatTensor([1, 2])
    assert f.dtype is torch.float32 and f.tolist() == [1.0, 2.0]
    assert torch.LongTensor([1, 2]).dtype is torch.int64
    assert torch.DoubleTensor(2, 3).shape == (2, 3)
    assert torch.Tensor([1, 2]).dtype is torch.float32 and torch.Tensor(2, 3).shape == (2, 3)
    assert isinstance(f, torch.Tensor) and isinstance(f, torch.FloatTensor)
    assert not isinstance(f, torch.LongTensor)
    assert torch.is_tensor(f) and not torch.is_tensor([1])


def test_shape_size_and_conversions():
    x = torch.arange(6.0).view(2, 3)
    assert isinstance(x.shape, Size) and repr(x.shape) == "torch.Size([2, 3])"
    assert x.size() == (2, 3) and x.size(1) == 3 and x.dim() == 2 and x.numel() == 6
    assert len(x) == 2 and [r.tolist() for r in x] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x[1, 2].item() == 5.0 and float(x[0, 1]) == 1.0 and int(x[1, 0]) == 3
    assert bool(torch.tensor(1.0)) and not bool(torch.tensor(0))
    assert [0, 1, 2][torch.tensor(1)] == 1
    assert f"{torch.tensor(1.5):.2f}" == "1.50"
    assert (x == x).dtype is torch.bool and (x > 2).tolist() == [[False] * 3, [True] * 3]
    assert hash(x) == id(x)
    assert torch.ones(2, 2).stride() == (2, 1) and torch.ones(2, 2).t().stride() == (1, 2)


def test_repr_uses_grad_fn_type_name():
    x = torch.ones(2, requires_grad=True)
    assert repr(x) == "tensor([1., 1.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 2.], grad_fn=<MulBackward0>)"
    assert repr(torch.empty_like(x).copy_(x)) == "tensor([1., 1.], grad_fn=<CopyBackwards>)"
    assert repr((x * 2).detach()) == "tensor([2., 2.])"


def test_manual_seed_reproducible():
    torch.manual_seed(3)
    a = torch.randn(4)
    torch.manual_seed(3)
    assert torch.randn(4).tolist() == a.tolist() and a.dtype is torch.float32
    assert torch.rand(2, 2).shape == (2, 2)
    assert torch.zeros_like(a).tolist() == [0.0] * 4 and torch.ones_like(a).dtype is torch.float32
