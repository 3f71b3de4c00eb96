"""Convolution, pooling, batch/group norm, padding and embedding against real torch: values,
grad_fn names, every input's gradient, double backward (create_graph) and forward-mode
tangents, all in float64, plus finite differences for the first-order gradients."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import detachviz.nn.functional as DF
import detachviz.torch as dv
from detachviz.engine import forward_ad as dfw

torch = pytest.importorskip("torch")
TF = pytest.importorskip("torch.nn.functional")

IDX = np.array([[1, 2, 4], [4, 3, 9]])
IDX_PAD = np.array([[0, 2, 0], [4, 2, 9]])

# name -> (fn(F, ns, *tensors), float input shapes); `ns` is the torch namespace in use
CASES: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]]]] = {
    "conv2d": (lambda F, ns, x, w, b: F.conv2d(x, w, b), [(2, 3, 7, 6), (4, 3, 3, 2), (4,)]),
    "conv2d_stride_pad_dil": (
        lambda F, ns, x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
        [(2, 3, 8, 9), (4, 3, 3, 3), (4,)],
    ),
    "conv2d_groups": (
        lambda F, ns, x, w: F.conv2d(x, w, None, padding=1, groups=2),
        [(2, 4, 5, 5), (6, 2, 3, 3)],
    ),
    "conv2d_same_even": (
        lambda F, ns, x, w: F.conv2d(x, w, padding="same"),
        [(1, 2, 5, 6), (3, 2, 2, 4)],
    ),
    "conv2d_unbatched": (lambda F, ns, x, w: F.conv2d(x, w), [(3, 6, 6), (2, 3, 3, 3)]),
    "conv1d": (
        lambda F, ns, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        [(2, 3, 11), (5, 3, 3), (5,)],
    ),
    "conv1d_same": (lambda F, ns, x, w: F.conv1d(x, w, padding="same"), [(2, 3, 9), (4, 3, 5)]),
    "conv_transpose2d": (
        lambda F, ns, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [(2, 3, 4, 5), (3, 4, 3, 3), (4,)],
    ),
    "conv_transpose2d_groups_dil": (
        lambda F, ns, x, w: F.conv_transpose2d(x, w, stride=(1, 2), groups=2, dilation=2),
        [(1, 4, 3, 4), (4, 3, 2, 3)],
    ),
    "conv_transpose1d": (
        lambda F, ns, x, w: F.conv_transpose1d(x, w, stride=3),
        [(2, 2, 5), (2, 3, 4)],
    ),
    "max_pool2d": (lambda F, ns, x: F.max_pool2d(x, 2), [(2, 3, 6, 7)]),
    "max_pool2d_overlap": (
        lambda F, ns, x: F.max_pool2d(x, 3, stride=2, padding=1, dilation=1, ceil_mode=True),
        [(2, 2, 7, 8)],
    ),
    "max_pool2d_dilated": (lambda F, ns, x: F.max_pool2d(x, (2, 3), dilation=2), [(1, 2, 9, 9)]),
    "max_pool1d": (lambda F, ns, x: F.max_pool1d(x, 3, stride=2), [(2, 3, 10)]),
    "avg_pool2d": (lambda F, ns, x: F.avg_pool2d(x, 2), [(2, 3, 6, 6)]),
    "avg_pool2d_pad": (
        lambda F, ns, x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
        [(2, 2, 7, 6)],
    ),
    "avg_pool2d_nopad": (
        lambda F, ns, x: F.avg_pool2d(x, 3, 2, 1, True, count_include_pad=False),
        [(1, 2, 6, 7)],
    ),
    "avg_pool2d_divisor": (lambda F, ns, x: F.avg_pool2d(x, 2, divisor_override=3), [(1, 2, 4, 4)]),
    "avg_pool1d": (lambda F, ns, x: F.avg_pool1d(x, 2), [(2, 3, 9)]),
    "adaptive_avg_pool2d": (lambda F, ns, x: F.adaptive_avg_pool2d(x, (3, 4)), [(2, 2, 7, 9)]),
    "adaptive_avg_pool2d_1": (lambda F, ns, x: F.adaptive_avg_pool2d(x, 1), [(2, 3, 4, 4)]),
    "adaptive_avg_pool1d": (lambda F, ns, x: F.adaptive_avg_pool1d(x, 4), [(2, 3, 10)]),
    "adaptive_max_pool2d": (lambda F, ns, x: F.adaptive_max_pool2d(x, (2, 3)), [(2, 2, 5, 7)]),
    "batch_norm_train": (
        lambda F, ns, x, w, b: F.batch_norm(
            x, ns.zeros(3, dtype=ns.float64), ns.ones(3, dtype=ns.float64), w, b, training=True
        ),
        [(4, 3, 2, 3), (3,), (3,)],
    ),
    "batch_norm_train_1d": (lambda F, ns, x: F.batch_norm(x, None, None, training=True), [(5, 4)]),
    "batch_norm_eval": (
        lambda F, ns, x, w, b: F.batch_norm(
            x,
            ns.tensor([0.1, -0.2, 0.3], dtype=ns.float64),
            ns.tensor([1.5, 0.5, 2.0], dtype=ns.float64),
            w,
            b,
            training=False,
        ),
        [(4, 3, 5), (3,), (3,)],
    ),
    "group_norm": (lambda F, ns, x, w, b: F.group_norm(x, 2, w, b), [(3, 4, 2, 3), (4,), (4,)]),
    "group_norm_noaffine": (lambda F, ns, x: F.group_norm(x, 3), [(2, 6, 5)]),
    "embedding": (lambda F, ns, w: F.embedding(ns.tensor(IDX), w), [(10, 4)]),
    "embedding_padding": (
        lambda F, ns, w: F.embedding(ns.tensor(IDX_PAD), w, padding_idx=0),
        [(10, 3)],
    ),
    "embedding_freq": (
        lambda F, ns, w: F.embedding(ns.tensor(IDX_PAD), w, scale_grad_by_freq=True),
        [(10, 3)],
    ),
    "pad_constant": (lambda F, ns, x: F.pad(x, (1, 2, 0, 1), value=0.5), [(2, 3, 4)]),
    "pad_crop": (lambda F, ns, x: F.pad(x, (-1, 2)), [(2, 3, 4)]),
    "pad_reflect2d": (lambda F, ns, x: F.pad(x, (1, 2, 2, 1), mode="reflect"), [(2, 2, 4, 5)]),
    "pad_reflect1d": (lambda F, ns, x: F.pad(x, (2, 3), mode="reflect"), [(2, 5)]),
    "pad_replicate2d": (lambda F, ns, x: F.pad(x, (1, 3, 2, 0), mode="replicate"), [(1, 2, 3, 4)]),
    "pad_replicate1d": (lambda F, ns, x: F.pad(x, (3, 1), mode="replicate"), [(2, 2, 4)]),
}

# NOTE: torch defines these gradients, they are not derivatives: padding_idx rows get none,
# scale_grad_by_freq divides by the index counts (the torch comparison above checks them)
NOT_DERIVATIVES = {"embedding_freq", "embedding_padding"}


def _inputs(name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    shapes = CASES[name][1]
    arrays = [rng.standard_normal(s) for s in shapes]
    if name.startswith("max_pool") or name.startswith("adaptive_max"):
        # distinct values: no ties, so the max is unambiguous under finite differences
        arrays[0] = (
            rng.permutation(np.arange(arrays[0].size, dtype=np.float64)).reshape(shapes[0])
            / arrays[0].size
        )
    return arrays


def _run(F: Any, ns: Any, name: str, arrays: list[np.ndarray]) -> tuple[Any, list[Any]]:
    ts = [ns.tensor(a, dtype=ns.float64, requires_grad=True) for a in arrays]
    return CASES[name][0](F, ns, *ts), ts


def _np(t: Any) -> np.ndarray:
    return np.array(t.detach().numpy())


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_names_and_gradients_match_torch(name: str) -> None:
    arrays = _inputs(name)
    ours, ours_in = _run(DF, dv, name, arrays)
    theirs, theirs_in = _run(TF, torch, name, arrays)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-10, atol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    nf_ours = [None if n is None else n.name() for n, _ in ours.grad_fn.next_functions]
    nf_theirs = [None if n is None else n.name() for n, _ in theirs.grad_fn.next_functions]
    assert nf_ours == nf_theirs
    rng = np.random.default_rng(0)
    g = rng.standard_normal(tuple(theirs.shape))
    ours.backward(dv.tensor(g))
    theirs.backward(torch.tensor(g))
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_DERIVATIVES))
def test_gradients_match_finite_differences(name: str) -> None:
    arrays = _inputs(name)
    ours, ours_in = _run(DF, dv, name, arrays)
    g = np.random.default_rng(1).standard_normal(tuple(ours.shape))
    (ours * dv.tensor(g)).sum().backward()
    eps = 1e-6
    for k, a in enumerate(arrays):
        flat = a.reshape(-1)
        picks = np.random.default_rng(k).choice(flat.size, size=min(6, flat.size), replace=False)
        for i in picks:
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[k].reshape(-1)[i] += eps
            minus[k].reshape(-1)[i] -= eps
            with dv.no_grad():
                fp = (_np(_run(DF, dv, name, plus)[0]) * g).sum()
                fm = (_np(_run(DF, dv, name, minus)[0]) * g).sum()
            fd = (fp - fm) / (2 * eps)
            assert abs(_np(ours_in[k].grad).reshape(-1)[i] - fd) < 1e-5 * max(1, abs(fd))


@pytest.mark.parametrize("name", sorted(CASES))
def test_double_backward_matches_torch(name: str) -> None:
    arrays = _inputs(name)
    results = []
    for F, ns in ((DF, dv), (TF, torch)):
        out, ins = _run(F, ns, name, arrays)
        g = ns.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape)))
        grads = ns.autograd.grad((out * g).sum(), ins, create_graph=True)
        total = sum((gr * gr).sum() for gr in grads if gr is not None and gr.requires_grad)
        if not isinstance(total, int):
            second = ns.autograd.grad(total, ins, allow_unused=True)
        else:
            second = [None] * len(ins)
        results.append([None if s is None else _np(s) for s in second])
    for a, b in zip(*results):
        if b is None or a is None:
            assert a is None or not np.any(a), name
            continue
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_mode_tangents_match_torch(name: str) -> None:
    arrays = _inputs(name)
    rng = np.random.default_rng(5)
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    with dfw.dual_level():
        duals = [dfw.make_dual(dv.tensor(a), dv.tensor(t)) for a, t in zip(arrays, tangents)]
        ours = _np(dfw.unpack_dual(CASES[name][0](DF, dv, *duals)).tangent)
    import torch.autograd.forward_ad as tfw

    with tfw.dual_level():
        duals = [tfw.make_dual(torch.tensor(a), torch.tensor(t)) for a, t in zip(arrays, tangents)]
        theirs = _np(tfw.unpack_dual(CASES[name][0](TF, torch, *duals)).tangent)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-11)
