"""Linear algebra: matmul (as torch decomposes it: dot, mv, mm, bmm), mm, addmm, bmm."""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import blas
from detachviz.engine import function as kit
from detachviz.engine.arrays import (
    strides,
)
from detachviz.engine.dtype import C_NAMES, SCALAR_NAMES
from detachviz.engine.function import (
    apply,
    finish,
)
from detachviz.engine.node import Saved, node_class, set_jvp
from detachviz.engine.ops.arith import alpha_scaled
from detachviz.engine.ops.unary import contiguous
from detachviz.engine.ops.view import (
    SQUEEZE4,
    UNSAFE_VIEW,
    expand,
    reshape,
    squeeze,
    t,
    transpose,
    unsqueeze,
)
from detachviz.engine.promote import type_name
from detachviz.engine.rules import NP
from detachviz.engine.tensor import Tensor, init_tensor

_ndarray = np.ndarray
_new = object.__new__


def _column_major(sizes: Any, strides: Any) -> bool:
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(k: Any, g: Any, mat2: Any, sizes: Any, strides: Any) -> Any:
    """The gradient of mm's first matrix; for a column-major mat1 (a transposed weight) as
    torch's formula computes it there, (mat2 @ g.t()).t(): the graph of a create_graph
    backward, and with MKL the bits (engine/blas.py: operand order and layout matter)."""
    if _column_major(sizes, strides):
        return k.t(k.mm(mat2, k.t(g)))
    return k.mm(g, k.t(mat2))


def mm_mat2_backward(k: Any, g: Any, mat1: Any, sizes: Any, strides: Any) -> Any:
    """The gradient of mm's second matrix; (g.t() @ mat1).t() for a column-major mat2 (the
    `weight.t()` of nn.Linear), as torch's formula (graph and bits, as mm_mat1_backward)."""
    if _column_major(sizes, strides):
        return k.t(k.mm(k.t(g), mat1))
    return k.mm(k.t(mat1), g)


MM = node_class(
    "MmBackward0",
    (
        lambda k, g, s, a: mm_mat1_backward(k, g, s[1], a.self_sym_sizes, a.self_sym_strides),
        lambda k, g, s, a: mm_mat2_backward(k, g, s[0], a.mat2_sym_sizes, a.mat2_sym_strides),
    ),
    saved=(Saved("self", 0, (1,)), Saved("mat2", 1, (0,))),
    attrs=("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"),
)
ADDMM = node_class(
    "AddmmBackward0",
    (
        lambda k, g, s, a: alpha_scaled(g, a.beta, k),
        lambda k, g, s, a: alpha_scaled(
            mm_mat1_backward(k, g, s[1], a.mat1_sym_sizes, a.mat1_sym_strides), a.alpha, k
        ),
        lambda k, g, s, a: alpha_scaled(
            mm_mat2_backward(k, g, s[0], a.mat2_sym_sizes, a.mat2_sym_strides), a.alpha, k
        ),
    ),
    saved=(Saved("mat1", 1, (2,)), Saved("mat2", 2, (1,))),
    attrs=(
        "alpha",
        "beta",
        "mat1_sym_sizes",
        "mat1_sym_strides",
        "mat2_sym_sizes",
        "mat2_sym_strides",
    ),
)
MV = node_class(
    "MvBackward0",
    (
        lambda k, g, s, a: k.outer(g, s[1]),
        # plain backward: NP.mm's matrix @ vector case directly
        lambda k, g, s, a: blas.mv(s[0].T, g) if k is NP else k.mm(k.t(s[0]), g),
    ),
    saved=(Saved("self", 0, (1,)), Saved("vec", 1, (0,))),
)
DOT = node_class(
    "DotBackward0",
    (lambda k, g, s, a: g * s[1], lambda k, g, s, a: g * s[0]),
    saved=(Saved("self", 0, (1,)), Saved("tensor", 1, (0,))),
)
BMM = node_class(
    "BmmBackward0",
    (
        lambda k, g, s, a: k.mm(g, k.transpose(s[1], -1, -2)),
        lambda k, g, s, a: k.mm(k.transpose(s[0], -1, -2), g),
    ),
    saved=(Saved("self", 0, (1,)), Saved("mat2", 1, (0,))),
)

set_jvp(MM, (lambda t, p, o, a: blas.mm(t, p[1]), lambda t, p, o, a: blas.mm(p[0], t)))
set_jvp(MV, (lambda t, p, o, a: blas.mv(t, p[1]), lambda t, p, o, a: blas.mv(p[0], t)))
set_jvp(DOT, (lambda t, p, o, a: blas.dot(t, p[1]), lambda t, p, o, a: blas.dot(p[0], t)))
set_jvp(BMM, (lambda t, p, o, a: blas.bmm(t, p[1]), lambda t, p, o, a: blas.bmm(p[0], t)))
set_jvp(
    ADDMM,
    (
        lambda t, p, o, a: alpha_scaled(t, a.beta),
        lambda t, p, o, a: alpha_scaled(t @ p[2], a.alpha),
        lambda t, p, o, a: alpha_scaled(p[1] @ t, a.alpha),
    ),
)


def matmul(x: Tensor, y: Tensor) -> Tensor:
    if not isinstance(y, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type_name(y)}")
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{x._dtype.name} != {y._dtype.name}".replace("float32", "float")
            .replace("float64", "double")
            .replace("int64", "long int")
        )
    nx, ny = x._data.ndim, y._data.ndim
    if nx == 0 or ny == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {nx}D and {ny}D"
        )
    if nx == 2 and ny == 1:
        xd, yd = x._data, y._data
        if xd.shape[1] == yd.shape[0]:  # _mv inlined (else it raises torch's message)
            return apply(MV, "matmul", (x, y), blas.mv(xd, yd), x._dtype)
        return _mv(x, y, "matmul")
    if nx == 1 and ny == 1:
        return apply(DOT, "matmul", (x, y), blas.dot(x._data, y._data), x._dtype)
    if nx == 1 and ny == 2:
        # NOTE: torch computes vector @ matrix as mm(unsqueeze(v, 0), M).squeeze(0)
        r = mm(unsqueeze(x, 0), y)
        out = kit.view(SQUEEZE4, "squeeze", r, r._data[0], (0, r._data.shape))
        # NOTE: torch squeezes in place (squeeze_): the result is no view, at _version 1
        out._base = None
        out._view_ver = None
        out._bump()
        return out
    if nx == 2 and ny == 2:
        return mm(x, y)
    # NOTE: the rest is torch's _matmul_impl step for step, so the graph has its nodes
    if _should_fold(x, y):
        return _folded(x, y)
    return _batched(x, y)


def _mv(x: Tensor, y: Tensor, name: str) -> Tensor:
    (rows, cols), n = x._data.shape, y._data.shape[0]
    if cols != n:
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{cols}), vec ({n})")
    return apply(MV, name, (x, y), blas.mv(x._data, y._data), x._dtype)


def _unsafe_view(inner: Tensor, shape: tuple[int, ...]) -> Tensor:
    """at::_unsafe_view: the result shares inner's storage but is no view of it (no _base),
    so in-place writes to it are allowed; its node is UnsafeViewBackward0."""
    out = _new(Tensor)
    init_tensor(out, inner._data.reshape(shape), inner._dtype)
    out._storage = inner._storage
    out._vc = inner._share_vc()
    return finish(UNSAFE_VIEW, "_unsafe_view", (inner,), out, (inner._data.shape,))


def _mT(x: Tensor) -> Tensor:
    return transpose(x, -2, -1)


def _should_fold(x: Tensor, y: Tensor) -> bool:
    """torch's should_fold: one side N-D (N >= 3), the other 1-D or 2-D, and either the small
    side requires grad or the large side (y transposed when it is the large one) folds its
    leading dims into one without a copy; never for a matrix @ N-D with nothing to save."""
    x_larger = x._data.ndim >= y._data.ndim
    big = x._data if x_larger else np.swapaxes(y._data, -1, -2)
    small = y if x_larger else x
    if not (big.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if x._data.ndim == 2:
        return False
    if big.size == 0:
        return True
    shape, st = big.shape, strides(big)
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _folded(x: Tensor, y: Tensor) -> Tensor:
    """The large side's batch dims folded into mm/mv rows, viewed back with _unsafe_view; a
    matrix @ N-D runs as (y.mT @ x.t()).mT, made contiguous."""
    flip = y._data.ndim > x._data.ndim
    big = _mT(y) if flip else x
    small = (t(x) if x._data.ndim == 2 else x) if flip else y
    sizes = big._data.shape
    shape = sizes[:-1]
    rows = 1
    for d in shape:
        rows *= d
    folded = reshape(big, (rows, sizes[-1]))
    if small._data.ndim == 1:
        return _unsafe_view(_mv(folded, small, "mv"), shape)
    out = _unsafe_view(mm(folded, small), shape + (small._data.shape[1],))
    return contiguous(_mT(out)) if flip else out


def _batched(x: Tensor, y: Tensor) -> Tensor:
    """Both sides expanded to the broadcast batch, each reshaped to one batch dim, bmm, and
    an _unsafe_view to the result shape (a vector y becomes a column, squeezed after)."""
    xs, ys = x._data.shape, y._data.shape
    nx, ny = len(xs), len(ys)
    n, m1 = (xs[-2] if nx > 1 else 1), xs[-1]
    m2, p = (ys[-2] if ny > 1 else ys[0]), (ys[-1] if ny > 1 else 1)
    batch = tuple(np.broadcast_shapes(xs[: max(nx - 2, 0)], ys[: max(ny - 2, 0)]))
    nb = 1
    for b in batch:
        nb *= b
    x3 = reshape(expand(x, batch + (n, m1)), (nb, n, m1))
    if ny == 1:
        y3 = unsqueeze(reshape(expand(y, batch + (m2,)), (nb, m2)), 2)
    else:
        y3 = reshape(expand(y, batch + (m2, p)), (nb, m2, p))
    shape = batch + ((n,) if nx > 1 else ()) + ((p,) if ny > 1 else ())
    inner = bmm(x3, y3)
    return _unsafe_view(squeeze(inner, -1) if ny == 1 else inner, shape)


def _same_dtype(x: Tensor, y: Tensor, message: str) -> None:
    """torch's matrix kernels never promote: mixed dtypes are an error (`message` gets the
    two c10 names, Double and Float)."""
    if x._dtype is not y._dtype:
        raise RuntimeError(message.format(SCALAR_NAMES[x._dtype.name], SCALAR_NAMES[y._dtype.name]))


def mm(x: Tensor, y: Tensor) -> Tensor:
    xd, yd = x._data, y._data
    if xd.ndim != 2 or yd.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{C_NAMES[x._dtype.name]} != {C_NAMES[y._dtype.name]}"
        )
    if xd.shape[1] != yd.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({xd.shape[0]}x{xd.shape[1]} and "
            f"{yd.shape[0]}x{yd.shape[1]})"
        )
    attrs = (
        yd.shape,
        strides(yd) if y._requires_grad else (),
        xd.shape,
        strides(xd) if x._requires_grad else (),
    )
    return apply(MM, "mm", (x, y), blas.mm(xd, yd), x._dtype, attrs)


def addmm(inp: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * inp + alpha * (mat1 @ mat2), one AddmmBackward0 node (what nn.Linear uses)."""
    xd, yd = mat1._data, mat2._data
    if xd.ndim != 2 or yd.ndim != 2 or xd.shape[1] != yd.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({xd.shape[0]}x{xd.shape[-1]} and "
            f"{yd.shape[0]}x{yd.shape[-1]})"
        )
    _same_dtype(mat1, mat2, "mat1 and mat2 must have the same dtype, but got {} and {}")
    _same_dtype(inp, mat2, "self and mat2 must have the same dtype, but got {} and {}")
    data = blas.addmm(inp._data, xd, yd, beta, alpha)
    attrs = (
        alpha,
        beta,
        xd.shape,
        strides(xd) if mat1._requires_grad else (),
        yd.shape,
        strides(yd) if mat2._requires_grad else (),
    )
    return apply(ADDMM, "addmm", (inp, mat1, mat2), data, mat1._dtype, attrs)


def rmatmul(x: Tensor, y: Any) -> Tensor:
    if not isinstance(y, Tensor):
        raise TypeError(f"matmul(): argument 'input' must be Tensor, not {type_name(y)}")
    return matmul(y, x)


def bmm(x: Tensor, y: Tensor) -> Tensor:
    xd, yd = x._data, y._data
    if xd.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if yd.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if xd.shape[0] != yd.shape[0] or xd.shape[2] != yd.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{xd.shape[0]}, {xd.shape[2]}] but got: [{yd.shape[0]}, {yd.shape[1]}]."
        )
    if x._dtype is not y._dtype:
        raise RuntimeError(
            f"expected scalar type {x._dtype.legacy.replace('Tensor', '')} but found "
            f"{y._dtype.legacy.replace('Tensor', '')}"
        )
    return apply(BMM, "bmm", (x, y), blas.bmm(xd, yd), x._dtype)
