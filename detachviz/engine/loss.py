"""Fused losses as torch's `torch._C._nn` ops: mse_loss and nll_loss_nd, with their nodes.

`MseLossBackward0` has torch's two edges (self, target) and saves both; `NllLossBackward0`
(and `NllLoss2DBackward0` for 4-D inputs) has one edge (self) but saves self, target, weight
and the total weight, as torch's node does, so `_saved_target` / `_saved_total_weight` read
like torch's. Reduction is torch's enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import grad_mode, ops, trace
from detachviz.engine.node import new_node, node_class
from detachviz.engine.tensor import Tensor, _edge, _init, _wrap

_NONE, _MEAN, _SUM = 0, 1, 2
_REDUCE = {_NONE: lambda v: v, _MEAN: np.mean, _SUM: np.sum}


# --------------------------------------------------------------------------------------------
# mse_loss
# --------------------------------------------------------------------------------------------
def _mse_norm(d: Any, reduction: int) -> float:
    """torch's mse_loss_backward factor: 2/numel for mean, else 2."""
    return 2.0 / d.size if reduction == _MEAN else 2.0


def _mse_self(F: Any, g: Any, s: Any, a: Any) -> Any:
    d = s[0] - s[1]
    return _mse_norm(F.data(d), a[0]) * d * g


def _mse_target(F: Any, g: Any, s: Any, a: Any) -> Any:
    d = s[1] - s[0]
    return _mse_norm(F.data(d), a[0]) * d * g


MSE = node_class(
    "MseLossBackward0",
    (_mse_self, _mse_target),
    saved=(("self", 0, 3), ("target", 1, 3)),
    attrs=("reduction",),
)


def _mse_jvp(sign: float) -> Any:
    def rule(t: Any, p: Any, out: Any, a: Any) -> Any:
        c = (2.0 * sign) * (p[0] - p[1]) * t
        return _REDUCE[a[0]](c) if a[0] != _NONE else c

    return rule


MSE._jvp = (_mse_jvp(1.0), _mse_jvp(-1.0))  # type: ignore[assignment]


def _check_reduction(reduction: int) -> None:
    if reduction not in _REDUCE:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    """torch._C._nn.mse_loss(input, target, reduction): mean/sum/none of (input - target)^2."""
    _check_reduction(reduction)
    x, t, dt = ops._operands(input, target, floating=True)
    try:
        d = x - t
    except ValueError:
        raise ops._broadcast_error(x.shape, t.shape) from None
    sq = d * d
    data = _REDUCE[reduction](sq) if reduction != _NONE else sq
    return ops._apply(MSE, "mse_loss", (input, target), np.asarray(data, dt.np), dt, (reduction,))


# --------------------------------------------------------------------------------------------
# nll_loss
# --------------------------------------------------------------------------------------------
def _picks(x: Any, target: Any, weight: Any, ignore_index: int) -> tuple[Any, Any]:
    """The picked index per element (ignored targets point at class 0) and its weight (0
    where ignored), for an input whose class dim is 0 (1-D) or 1."""
    cdim = 0 if x.ndim == 1 else 1
    n_classes = x.shape[cdim]
    ignored = target == ignore_index
    bad = ~ignored & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(target[bad].flat[0])} is out of bounds.")
    safe = np.where(ignored, 0, target)
    w_class = np.ones(n_classes, dtype=x.dtype) if weight is None else weight.astype(x.dtype)
    w = np.where(ignored, x.dtype.type(0), w_class[safe]).astype(x.dtype)
    return safe, w


def _nll_mask(x: Any, target: Any, weight: Any, ignore_index: int) -> Any:
    """-(weight of the picked class) at each picked position, 0 elsewhere: d loss_n / d x."""
    cdim = 0 if x.ndim == 1 else 1
    safe, w = _picks(x, target, weight, ignore_index)
    mask = np.zeros(x.shape, dtype=x.dtype)
    np.put_along_axis(mask, np.expand_dims(safe, cdim), np.expand_dims(-w, cdim), axis=cdim)
    return mask


def _nll_vjp(F: Any, g: Any, s: Any, a: Any) -> Any:
    x = F.data(s[0])
    weight = None if s[2] is None else F.data(s[2])
    mask = _nll_mask(x, F.data(s[1]), weight, a[1])
    if a[0] == _MEAN:
        mask = mask / F.data(s[3])
    elif a[0] == _NONE and x.ndim > 1:
        # the per-element gradient gains the class dim back
        g = F.reshape(g, (x.shape[0], 1) + x.shape[2:])
    return g * F.const(mask.astype(x.dtype, copy=False))


NLL = node_class(
    "NllLossBackward0",
    (_nll_vjp,),
    saved=(("self", 0, 1), ("target", 1, 1), ("weight", 2, 1), ("total_weight", 3, 1)),
    attrs=("reduction", "ignore_index"),
)
NLL2D = node_class(
    "NllLoss2DBackward0",
    NLL._vjps,
    saved=tuple(zip(NLL._save_names, NLL._save_src, NLL._save_need)),
    attrs=NLL._attr_names,
)


def _nll_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, target, weight = p[0], p[1], p[2]
    mask = _nll_mask(x, target, weight, a[1])
    per = (t * mask).sum(axis=0 if x.ndim == 1 else 1)
    if a[0] == _NONE:
        return per
    total = per.sum()
    if a[0] == _MEAN:
        with np.errstate(all="ignore"):
            total = total / _picks(x, target, weight, a[1])[1].sum()
    return total


NLL._jvp = NLL2D._jvp = (_nll_jvp, None, None)  # type: ignore[assignment]


def _version(t: Any) -> int:
    vc = t._vc
    return 0 if vc is None else vc.v


def _nll(
    cls: Any, x: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore: int
) -> Tensor:
    """One NllLoss node over a 1-D, 2-D or 4-D input."""
    xd = x._data
    td = target._data
    wd = None if weight is None else weight._data
    cdim = 0 if xd.ndim == 1 else 1
    safe, w = _picks(xd, td, wd, ignore)
    picked = np.take_along_axis(xd, np.expand_dims(safe, cdim), cdim).squeeze(cdim)
    losses = -(picked * w)
    # NOTE: torch leaves total_weight 0 for an unreduced batch, but a 1-D input always sums it
    unreduced = reduction == _NONE and xd.ndim > 1
    total = xd.dtype.type(0) if unreduced else w.sum(dtype=xd.dtype)
    if reduction == _NONE:
        data = losses
    else:
        data = losses.sum(dtype=xd.dtype)
        if reduction == _MEAN:
            with np.errstate(all="ignore"):
                data = data / total  # NOTE: all targets ignored gives nan, as in torch
    out = object.__new__(Tensor)
    _init(out, np.asarray(data, dtype=xd.dtype), x._dtype)
    attrs = (reduction, ignore)
    if x._requires_grad and grad_mode._enabled:
        node = new_node(cls, (_edge(x),), attrs)
        tw = _wrap(np.asarray(total, dtype=xd.dtype), x._dtype)
        node._saved = (x, target, weight, tw)
        node._versions = (
            _version(x),
            _version(target),
            0 if weight is None else _version(weight),
            0,
        )
        node._shape = out._data.shape  # the node's output metadata
        node._npd = out._data.dtype
        out._grad_fn = node
        out._requires_grad = True
    ins = (x, target) if weight is None else (x, target, weight)
    if ops._FW is not None:
        ops._FW.op(cls, (x, target, weight), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record("nll_loss", ins, (out,))
    return out


def nll_loss_nd(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = _MEAN,
    ignore_index: int = -100,
) -> Tensor:
    """torch._C._nn.nll_loss_nd: 1-D/2-D inputs make NllLossBackward0, 4-D NllLoss2DBackward0,
    3-D and 5-D+ are viewed to 4-D (and the unreduced result viewed back), as torch does."""
    _check_reduction(reduction)
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if target._dtype.name not in ("int64", "uint8"):
        kind = target._dtype.legacy[: -len("Tensor")]
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {kind}")
    if nd > 1 and target._data.ndim and input._data.shape[0] != target._data.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size "
            f"({target._data.shape[0]})."
        )
    if nd <= 2:
        return _nll(NLL, input, target, weight, reduction, ignore_index)
    if nd == 4:
        return _nll(NLL2D, input, target, weight, reduction, ignore_index)
    n, c = input._data.shape[:2]
    if tuple(target._data.shape[1:]) != tuple(input._data.shape[2:]):
        raise ValueError(
            f"Expected target size {list((n, *input._data.shape[2:]))}, got "
            f"{list(target._data.shape)}"
        )
    out_size = (n, *input._data.shape[2:])
    x4 = input.contiguous().view(n, c, 1, -1)
    t3 = target.contiguous().view(n, 1, -1)
    out = _nll(NLL2D, x4, t3, weight, reduction, ignore_index)
    return out.view(*out_size) if reduction == _NONE else out
