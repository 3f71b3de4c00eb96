"""Copying and pickling tensors as torch does: pickle keeps values, dtype, layout and
requires_grad (a non-leaf comes back a leaf); deepcopy refuses a non-leaf."""

from __future__ import annotations

import copy
import pickle

import pytest

from detachviz import torch
from detachviz.engine import errors


@pytest.mark.parametrize(
    ("make", "dtype", "requires_grad"),
    [
        (lambda: torch.ones(2, dtype=torch.float64, requires_grad=True), torch.float64, True),
        (lambda: torch.ones(2, dtype=torch.float64, requires_grad=True) * 2, torch.float64, True),
        (lambda: torch.arange(6).reshape(2, 3), torch.int64, False),
        (lambda: torch.tensor([True, False]), torch.bool, False),
        (lambda: torch.tensor([0.1, 1 / 3]), torch.float32, False),
    ],
    ids=["float64-leaf", "non-leaf", "int64", "bool", "float32"],
)
def test_pickle_round_trip_keeps_values_dtype_and_requires_grad(make, dtype, requires_grad):
    t = make()
    back = pickle.loads(pickle.dumps(t))
    assert back.dtype is dtype and back.requires_grad is requires_grad
    assert back.is_leaf and back.grad_fn is None
    assert back.detach().numpy().tobytes() == t.detach().numpy().tobytes()  # bit for bit


def test_pickle_keeps_a_transposed_layout_and_a_parameter_class():
    t = torch.arange(6.0).reshape(2, 3).t()
    assert pickle.loads(pickle.dumps(t)).stride() == t.stride() == (1, 3)
    p = torch.nn.Parameter(torch.ones(2))
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is torch.nn.Parameter and back.requires_grad


def test_deepcopy_refuses_a_non_leaf_with_torchs_message():
    a = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as caught:
        copy.deepcopy(a * 2)
    assert str(caught.value) == errors.DEEPCOPY_NON_LEAF
    b = copy.deepcopy(a)
    assert b is not a and b.requires_grad and b.tolist() == [1.0, 1.0]


def test_the_tensor_class_is_spelled_as_torch_spells_it():
    assert repr(torch.Tensor) == "<class 'torch.Tensor'>"
    assert type(torch.ones(1)).__module__ == "torch"
