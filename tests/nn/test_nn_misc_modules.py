"""Flatten, Unflatten, Dropout and F.dropout: shapes, reprs, grad_fn names, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.nn as dnn
import detachviz.nn.functional as DF
import detachviz.torch as dv

# module factory (on the nn namespace) -> expected repr
REPRS = [
    (lambda nn: nn.Dropout(), "Dropout(p=0.5, inplace=False)"),
    (lambda nn: nn.Dropout(0.2, inplace=True), "Dropout(p=0.2, inplace=True)"),
    (lambda nn: nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (lambda nn: nn.Flatten(0, 1), "Flatten(start_dim=0, end_dim=1)"),
    (lambda nn: nn.Unflatten(1, (2, 2)), "Unflatten(dim=1, unflattened_size=(2, 2))"),
    (lambda nn: nn.Identity(), "Identity()"),
]


@pytest.mark.parametrize(("make", "text"), REPRS)
def test_reprs(make, text):
    assert repr(make(dnn)) == text
    torch = pytest.importorskip("torch")
    assert repr(make(torch.nn)) == text


# (module factory, input shape) -> output shape and grad_fn name as torch gives them
SHAPES = [
    (lambda nn: nn.Flatten(), (2, 3, 4), (2, 12), "ViewBackward0"),
    (lambda nn: nn.Flatten(0), (2, 3, 4), (24,), "ViewBackward0"),
    (lambda nn: nn.Flatten(0, 1), (2, 3, 4), (6, 4), "ViewBackward0"),
    (lambda nn: nn.Unflatten(1, (2, -1)), (3, 4), (3, 2, 2), "ViewBackward0"),
    (lambda nn: nn.Unflatten(-1, (1, 4)), (3, 4), (3, 1, 4), "ViewBackward0"),
]


@pytest.mark.parametrize(("make", "shape", "out_shape", "node"), SHAPES)
def test_reshaping_modules(make, shape, out_shape, node):
    x = dv.arange(float(np.prod(shape))).reshape(*shape).requires_grad_()
    y = make(dnn)(x * 1)
    assert tuple(y.shape) == out_shape and y.grad_fn.name() == node
    y.sum().backward()
    assert x.grad.tolist() == np.ones(shape).tolist()


def test_flatten_of_already_flat_dims_returns_input():
    x = dv.ones(2, 3)
    assert dnn.Flatten()(x) is x and dnn.Identity()(x) is x


def test_unflatten_wrong_sizes():
    with pytest.raises(RuntimeError, match="don't multiply up"):
        dnn.Unflatten(1, (3, 2))(dv.ones(2, 4))


def test_dropout_eval_and_p0_are_identity():
    x = dv.ones(3, requires_grad=True)
    d = dnn.Dropout(0.5)
    d.eval()
    assert d(x) is x and DF.dropout(x, 0.0) is x and DF.dropout(x, 0.5, training=False) is x


@pytest.mark.parametrize("p", [0.25, 0.5, 0.9])
def test_dropout_train_scales_kept_and_gradient_is_the_mask(p):
    dv.manual_seed(3)
    x = dv.tensor(np.linspace(1.0, 2.0, 200), dtype=dv.float64, requires_grad=True)
    y = DF.dropout(x, p)
    assert y.grad_fn.name() == "MulBackward0"
    xs, ys = x.detach().numpy(), y.detach().numpy()
    kept = ys != 0
    np.testing.assert_allclose(ys[kept], xs[kept] / (1 - p))
    assert 0 < kept.sum() < 200
    y.backward(dv.ones(200, dtype=dv.float64))
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 1 / (1 - p), 0.0))

    def f(v):  # the same seed draws the same mask
        dv.manual_seed(3)
        return DF.dropout(dv.tensor(v, dtype=dv.float64), p).numpy().sum()

    eps = 1e-6
    fd = [(f(xs + eps * e) - f(xs - eps * e)) / (2 * eps) for e in np.eye(200)[:20]]
    np.testing.assert_allclose(x.grad.numpy()[:20], fd, rtol=1e-6)


def test_dropout_p1_zeros_and_inplace():
    x = dv.ones(4, requires_grad=True)
    assert DF.dropout(x, 1.0).tolist() == [0.0] * 4
    y = x * 2
    z = DF.dropout(y, 0.5, inplace=True)
    assert z is y and y.grad_fn.name() == "MulBackward0"


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_bad_probability(p):
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        dnn.Dropout(p)
