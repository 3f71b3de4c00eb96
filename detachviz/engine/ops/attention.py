"""What torch's CPU attention is made of beyond the common ops: the fused flash kernel
(`ScaledDotProductFlashAttentionForCpuBackward0`, edges query, key, value), the math path's
`_safe_softmax` (SafeSoftmaxBackward0: a row that is all -inf gives zeros, not nan) and its
scalar `mul` (MulBackward1, the Tensor-Scalar overload C++ code calls), and `baddbmm`
(BaddbmmBackward0, which multi-head attention uses to add its mask).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine import blas, softmax
from detachviz.engine.function import apply
from detachviz.engine.node import Node, Saved, node_class
from detachviz.engine.tensor import Tensor


# --------------------------------------------------------------------------------------------
# _safe_softmax
# --------------------------------------------------------------------------------------------
def _softmax_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    y = s[0]
    if isinstance(g, np.ndarray) and (exact := softmax.backward(g, y, a.dim, False)) is not None:
        return exact
    gy = g * y
    total = (
        np.sum(gy, axis=a.dim, keepdims=True)
        if isinstance(gy, np.ndarray)
        else gy.sum(a.dim, keepdim=True)
    )
    return gy - y * total


SAFE_SOFTMAX = node_class(
    "SafeSoftmaxBackward0",
    (_softmax_vjp,),
    saved=(Saved("result", -1, (0,)),),
    attrs=("dim",),
    jvp=(lambda t, p, o, a: o * (t - np.sum(t * o, axis=a.dim, keepdims=True)),),
)


def _safe_softmax_data(xd: Any, dim: int) -> Any:
    top = np.max(xd, axis=dim, keepdims=True)
    dead = np.isneginf(top)
    exact = softmax.forward(xd, dim, False)  # torch's _safe_softmax: softmax, then the zeros
    if exact is not None:
        return np.where(dead, np.float32(0.0), exact)
    e = np.exp(xd - np.where(dead, 0, top))
    total = np.sum(e, axis=dim, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(dead, 0, e / np.where(dead, 1, total))
    return out.astype(xd.dtype, copy=False)


def safe_softmax(x: Tensor, dim: int) -> Tensor:
    d = dim % x._data.ndim
    return apply(
        SAFE_SOFTMAX, "_safe_softmax", (x,), _safe_softmax_data(x._data, d), x._dtype, (d,)
    )


# --------------------------------------------------------------------------------------------
# baddbmm
# --------------------------------------------------------------------------------------------
BADDBMM = node_class(
    "BaddbmmBackward0",
    (
        lambda k, g, s, a: g * a.beta,
        lambda k, g, s, a: k.mm(g, k.transpose(s[1], -1, -2)) * a.alpha,
        lambda k, g, s, a: k.mm(k.transpose(s[0], -1, -2), g) * a.alpha,
    ),
    saved=(Saved("batch1", 1, (2,)), Saved("batch2", 2, (1,))),
    attrs=("alpha", "beta"),
    jvp=(
        lambda t, p, o, a: t * a.beta,
        lambda t, p, o, a: (t @ p[2]) * a.alpha,
        lambda t, p, o, a: (p[1] @ t) * a.alpha,
    ),
)


def baddbmm(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    data = blas.bmm(batch1._data, batch2._data, input._data, beta, alpha)
    return apply(BADDBMM, "baddbmm", (input, batch1, batch2), data, batch1._dtype, (alpha, beta))


# --------------------------------------------------------------------------------------------
# the fused flash-attention kernel
# --------------------------------------------------------------------------------------------
def _scores(q: Any, k: Any, mask: Any, scale: float, causal: bool) -> Any:
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if causal:
        lq, lk = s.shape[-2], s.shape[-1]
        s = np.where(np.tril(np.ones((lq, lk), dtype=bool)), s, -np.inf)
    if mask is not None:
        s = s + mask
    return s


def _flash_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    if tensor_mode:
        raise RuntimeError(
            "derivative for _scaled_dot_product_flash_attention_for_cpu_backward is not implemented"
        )
    q, k, v = node._unpack(False)  # (checks that none was modified in place since)
    mask, _, causal, scale = node._attrs
    q64, k64, v64, g64 = (a.astype(np.float64) for a in (q, k, v, g))
    p = _safe_softmax_data(_scores(q64, k64, mask, scale, causal), -1)
    dv = np.matmul(np.swapaxes(p, -1, -2), g64)
    dp = np.matmul(g64, np.swapaxes(v64, -1, -2))
    ds = p * (dp - np.sum(dp * p, axis=-1, keepdims=True))
    dq = np.matmul(ds, k64) * scale
    dk = np.matmul(np.swapaxes(ds, -1, -2), q64) * scale
    return [dq.astype(q.dtype), dk.astype(q.dtype), dv.astype(q.dtype)]


FLASH = node_class(
    "ScaledDotProductFlashAttentionForCpuBackward0",
    (None, None, None),
    saved=(Saved("query", 0, (0, 1, 2)), Saved("key", 1, (0, 1, 2)), Saved("value", 2, (0, 1, 2))),
    attrs=("attn_mask", "dropout_p", "is_causal", "scale"),
    custom=_flash_backward,
)


def flash_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Any, causal: bool, scale: float | None
) -> Tensor:
    """softmax(q k^T * scale + mask) v on (B, H, L, E) inputs, one fused node. The result
    has the query's memory layout when the query's last dim is dense (as torch's kernel
    allocates it: multi-head attention's permute of it is then contiguous), else C order."""
    e = q._data.shape[-1]
    sc = 1.0 / math.sqrt(e) if scale is None else scale
    mask_d = None if mask is None else mask._data.astype(np.float64)
    p = _safe_softmax_data(
        _scores(q._data.astype(np.float64), k._data.astype(np.float64), mask_d, sc, causal), -1
    )
    out = np.matmul(p, v._data.astype(np.float64)).astype(q._data.dtype)
    qd = q._data
    laid = np.empty_like(qd) if qd.strides[-1] == qd.itemsize else np.empty(qd.shape, qd.dtype)
    laid[...] = out
    return apply(
        FLASH,
        "_scaled_dot_product_flash_attention_for_cpu",
        (q, k, v),
        laid,
        q._dtype,
        (mask_d, 0.0, causal, sc),
    )
