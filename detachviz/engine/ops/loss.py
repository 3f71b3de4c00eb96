"""Fused losses as torch's `torch._C._nn` ops: mse_loss, nll_loss_nd and the binary
cross-entropies, with their nodes.

`MseLossBackward0` has torch's two edges (self, target) and saves both; `NllLossBackward0`
(and `NllLoss2DBackward0` for 4-D inputs) has one edge (self) but saves self, target, weight
and the total weight, as torch's node does, so `_saved_target` / `_saved_total_weight` read
like torch's. Reduction is torch's enum: 0 none, 1 mean, 2 sum.

`BinaryCrossEntropyBackward0` (torch._C._nn.binary_cross_entropy) and
`BinaryCrossEntropyWithLogitsBackward0` (torch.binary_cross_entropy_with_logits) have torch's
two edges (self, target) and save self, target, weight (and pos_weight), as torch's nodes do;
weight and pos_weight are not differentiable (torch refuses them when they require grad).
The derivative formulas are torch's (FunctionsManual.cpp) and are written once for numpy
arrays and Tensors, so create_graph=True builds a differentiable graph from the same rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from detachviz.engine import state, summation
from detachviz.engine.function import apply, finish
from detachviz.engine.node import RESULT, Saved, new_node, node_class, set_jvp
from detachviz.engine.ops import stats
from detachviz.engine.ops.saving import attach_saved
from detachviz.engine.promote import broadcast_error, operands
from detachviz.engine.rules import NP, TT, backward_op
from detachviz.engine.tensor import Tensor, edge, init_tensor, wrap

_NONE, _MEAN, _SUM = 0, 1, 2
_REDUCE: dict[int, Callable[[Any], Any]] = {_NONE: lambda v: v, _MEAN: np.mean, _SUM: np.sum}
_PAIR_NAMES = ("grad_output", "self", "target")  # what a loss backward function saves


# --------------------------------------------------------------------------------------------
# mse_loss
# --------------------------------------------------------------------------------------------
def _mse_norm(d: Any, reduction: int) -> float:
    """torch's mse_loss_backward factor: 2/numel for mean, else 2."""
    return 2.0 / d.size if reduction == _MEAN else 2.0


def _mse_back(k: Any, g: Any, x: Any, t: Any, a: Any) -> Any:
    """torch's mse_loss_backward(grad, self, target): 2/numel (mean) * (self - target) * g."""
    d = x - t
    return _mse_norm(k.data(d), a.reduction) * d * g


# under create_graph one MseLossBackwardBackward0 node (derivatives.yaml's formulas)
MSE_BACK = backward_op(
    "MseLossBackwardBackward0",
    _mse_back,
    (
        lambda k, gg, go, x, t, a: _mse_norm(k.data(x), a.reduction) * gg * go,
        lambda k, gg, go, x, t, a: -_mse_norm(k.data(x), a.reduction) * gg * go,
    ),
    attrs=("reduction",),
    saved=_PAIR_NAMES,
    summed=True,
)
MSE = node_class(
    "MseLossBackward0",
    (
        lambda k, g, s, a: MSE_BACK(k, g, s[0], s[1], a),
        lambda k, g, s, a: MSE_BACK(k, g, s[1], s[0], a),
    ),
    saved=(Saved("self", 0, (0, 1)), Saved("target", 1, (0, 1))),
    attrs=("reduction",),
)


def _mse_jvp(sign: float) -> Any:
    def rule(t: Any, p: Any, out: Any, a: Any) -> Any:
        c = (2.0 * sign) * (p[0] - p[1]) * t
        return _REDUCE[a.reduction](c) if a.reduction != _NONE else c

    return rule


set_jvp(MSE, (_mse_jvp(1.0), _mse_jvp(-1.0)))


def _check_reduction(reduction: int) -> None:
    if reduction not in _REDUCE:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    """torch._C._nn.mse_loss(input, target, reduction): mean/sum/none of (input - target)^2."""
    _check_reduction(reduction)
    x, t, dt = operands(input, target, floating=True)
    try:
        d = x - t
    except ValueError:
        raise broadcast_error(x.shape, t.shape) from None
    sq = d * d
    data = _REDUCE[reduction](sq) if reduction != _NONE else sq
    return apply(MSE, "mse_loss", (input, target), np.asarray(data, dt.np), dt, (reduction,))


# --------------------------------------------------------------------------------------------
# nll_loss
# --------------------------------------------------------------------------------------------
def _picks(x: Any, target: Any, weight: Any, ignore_index: int) -> tuple[Any, Any]:
    """The picked index per element (ignored targets point at class 0) and its weight (0
    where ignored), for an input whose class dim is 0 (1-D) or 1."""
    cdim = 0 if x.ndim == 1 else 1
    n_classes = x.shape[cdim]
    # the common case: all targets in range (a negative one is not, as unsigned) and none ignored
    unsigned = target.astype(np.int64, copy=False).view(np.uint64)
    if target.size and np.maximum.reduce(unsigned, None) < n_classes:
        if not 0 <= ignore_index < n_classes or not (target == ignore_index).any():
            if weight is None:
                return target, np.ones(target.shape, dtype=x.dtype)
            return target, weight.astype(x.dtype)[target]
    ignored = target == ignore_index
    bad = ~ignored & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(target[bad].flat[0])} is out of bounds.")
    safe = np.where(ignored, 0, target)
    w_class = np.ones(n_classes, dtype=x.dtype) if weight is None else weight.astype(x.dtype)
    w = np.where(ignored, x.dtype.type(0), w_class[safe]).astype(x.dtype)
    return safe, w


def _nll_mask(x: Any, target: Any, weight: Any, ignore_index: int, grad: Any = None) -> Any:
    """d loss_n / d x: -weight at each pick (a reduced loss's: weight * grad), 0 elsewhere."""
    cdim = 0 if x.ndim == 1 else 1
    safe, w = _picks(x, target, weight, ignore_index)
    w = -w if grad is None else np.where(w == 0, x.dtype.type(0), (w * grad).astype(x.dtype))
    mask = np.zeros(x.shape, dtype=x.dtype)
    if x.ndim == 2:
        mask[np.arange(x.shape[0]), safe] = w
    else:
        np.put_along_axis(mask, np.expand_dims(safe, cdim), np.expand_dims(w, cdim), axis=cdim)
    return mask


def _nll_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    x = k.data(s[0])
    weight = None if s[2] is None else k.data(s[2])
    if a.reduction == _NONE and x.ndim > 1:  # the per-element gradient gains the class dim back
        g = k.reshape(g, (x.shape[0], 1) + x.shape[2:])
        return g * k.const(_nll_mask(x, k.data(s[1]), weight, a.ignore_index))
    # torch's order: grad = -(g / total_weight) (mean) or -g, then weight * grad
    grad = -(k.data(g) / k.data(s[3])) if a.reduction == _MEAN else -k.data(g)
    return k.const(_nll_mask(x, k.data(s[1]), weight, a.ignore_index, np.asarray(grad, x.dtype)))


def _nll_of(k: Any, gg: Any, s: Any, a: Any) -> Any:
    """nll_loss_backward's gradient for its grad_output: nll_loss of the incoming gradient."""
    target, weight = s
    if k is NP:
        gg, target = wrap(gg), wrap(target)
        weight = None if weight is None else wrap(weight)
    cls = NLL2D if len(gg.shape) == 4 else NLL
    out = _nll(cls, gg, target, weight, a.reduction, a.ignore_index)
    return out if k is not NP else out._data


# create_graph: torch's nll_loss_backward as one op, with edges (grad_output, self)
NLL_BACK_ROW = (
    (_nll_of, lambda k, gg, s, a: k.zeros_like(gg)),  # the input's: torch's zeros_like(grad)
    (Saved("target", 2, (0, 1)), Saved("weight", 3, (0, 1))),
    ("reduction", "ignore_index"),
)
NLL_BACK = node_class("NllLossBackwardBackward0", *NLL_BACK_ROW)
NLL2D_BACK = node_class("NllLoss2DBackwardBackward0", *NLL_BACK_ROW)


def _nll_back_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    """nll_loss_backward is linear in grad_output (and constant in self): itself on t."""
    x, target, weight = p[1], p[2], p[3]
    total = _picks(x, target, weight, a.ignore_index)[1].sum(dtype=x.dtype)
    return _nll_vjp(NP, t, (x, target, weight, total), a)


set_jvp(NLL_BACK, (_nll_back_jvp, None, None, None))
set_jvp(NLL2D_BACK, (_nll_back_jvp, None, None, None))


def _nll_backward(k: Any, g: Any, s: Any, a: Any) -> Any:
    if k is not TT:
        return _nll_vjp(k, g, s, a)
    x, target, weight = s[0], s[1], s[2]
    out = _nll_vjp(NP, g._data, tuple(None if v is None else v._data for v in s), a)
    out = wrap(np.asarray(out), x._dtype)
    cls, attrs = NLL2D_BACK if x.dim() == 4 else NLL_BACK, (a.reduction, a.ignore_index)
    attach_saved(cls, out, (g, x), (target, weight), attrs)
    return finish(cls, "nll_loss_backward", (g, x, target, weight), out, attrs, attached=True)


# nll_loss saves its target, weight and total_weight for self's gradient (the only one)
NLL_SAVED = tuple(
    Saved(n, k, (0,)) for k, n in enumerate(("self", "target", "weight", "total_weight"))
)
NLL = node_class(
    "NllLossBackward0",
    (_nll_backward,),
    saved=NLL_SAVED,
    attrs=("reduction", "ignore_index"),
)
NLL2D = node_class(
    "NllLoss2DBackward0",
    NLL._vjps,
    saved=NLL_SAVED,
    attrs=NLL._attr_names,
)


def _nll_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, target, weight = p[0], p[1], p[2]
    mask = _nll_mask(x, target, weight, a.ignore_index)
    per = (t * mask).sum(axis=0 if x.ndim == 1 else 1)
    if a.reduction == _NONE:
        return per
    total = per.sum()
    if a.reduction == _MEAN:
        with np.errstate(all="ignore"):
            total = total / _picks(x, target, weight, a.ignore_index)[1].sum()
    return total


set_jvp(NLL, (_nll_jvp, None, None))
set_jvp(NLL2D, (_nll_jvp, None, None))


def _version(t: Any) -> int:
    vc = t._vc
    return 0 if vc is None else vc.v


def _nll(
    cls: Any, x: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore: int
) -> Tensor:
    """One NllLoss node over a 1-D, 2-D or 4-D input."""
    xd, td = x._data, target._data
    wd = None if weight is None else weight._data
    cdim = 0 if xd.ndim == 1 else 1
    safe, w = _picks(xd, td, wd, ignore)
    if xd.ndim == 2:
        picked = xd[np.arange(xd.shape[0]), safe]
    else:
        picked = np.take_along_axis(xd, np.expand_dims(safe, cdim), cdim).squeeze(cdim)
    losses = -(picked * w)
    # NOTE: torch leaves total_weight 0 for an unreduced batch, but a 1-D input always sums it
    if reduction == _NONE and xd.ndim > 1:
        total, data = xd.dtype.type(0), losses
    else:  # torch's cascade over the kept samples, in order
        kept, n = (td != ignore).ravel().nonzero()[0], int(td.size)
        total = xd.dtype.type(kept.size) if wd is None else summation.nll_cascade(w, kept, n)
        data = losses if reduction == _NONE else summation.nll_cascade(losses, kept, n)
    if reduction == _MEAN and abs(total) >= 1:  # this division cannot warn
        data = data / total
    elif reduction == _MEAN:
        with np.errstate(all="ignore"):
            data = data / total  # NOTE: all targets ignored gives nan, as in torch
    out = object.__new__(Tensor)
    init_tensor(out, np.asarray(data, dtype=xd.dtype), x._dtype)
    attrs = (reduction, ignore)
    if x._requires_grad and state.grad_enabled:
        node = new_node(cls, (edge(x),), attrs)
        tw = wrap(np.asarray(total, dtype=xd.dtype), x._dtype)
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
    shown = (x, target) if weight is None else (x, target, weight)
    return finish(cls, "nll_loss", (x, target, weight), out, attrs, record=shown, attached=True)


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


# --------------------------------------------------------------------------------------------
# binary cross entropy
# --------------------------------------------------------------------------------------------
_EPSILON = 1e-12  # torch's clamp on x(1-x) in binary_cross_entropy_backward


# elementwise helpers that run on numpy arrays and on Tensors alike
def _log(v: Any) -> Any:
    return v.log() if isinstance(v, Tensor) else np.log(v)


def _clamp_min(v: Any, m: float) -> Any:
    return v.clamp(min=m) if isinstance(v, Tensor) else np.maximum(v, v.dtype.type(m))


def _sigmoid(v: Any) -> Any:
    if isinstance(v, Tensor):
        return v.sigmoid()
    with np.errstate(over="ignore"):
        return (1.0 / (1.0 + np.exp(-v))).astype(v.dtype, copy=False)


def _log_sigmoid(v: Any) -> Any:
    """log(sigmoid(v)) without overflow: min(v, 0) - log(1 + exp(-|v|))."""
    if isinstance(v, Tensor):
        return v.clamp(max=0) - ((-v.abs()).exp() + 1).log()
    return (np.minimum(v, 0) - np.log1p(np.exp(-np.abs(v)))).astype(v.dtype, copy=False)


def _weighted(d: Any, w: Any) -> Any:
    return d if w is None else d * w


def _scale(d: Any, n: int, reduction: int) -> Any:
    """The reduction's factor on an elementwise derivative (1/numel for mean)."""
    return d * (1.0 / n) if reduction == _MEAN and n else d


def _numel(v: Any) -> int:
    return int(np.prod(v.shape)) if isinstance(v, Tensor) else v.size


# --------------------------------------------------------------------------------------------
# elementwise derivatives d loss_i / d input_i (torch's formulas, before the reduction)
# --------------------------------------------------------------------------------------------
def _bce_dself(x: Any, t: Any, w: Any, pw: Any) -> Any:
    return _weighted((x - t) / _clamp_min((1 - x) * x, _EPSILON), w)


def _bce_dtarget(x: Any, t: Any, w: Any, pw: Any) -> Any:
    # NOTE: torch's -logit(x): infinite at x = 0 or 1, unclamped
    return _weighted(_log(1 - x) - _log(x), w)


def _bcel_dself(x: Any, t: Any, w: Any, pw: Any) -> Any:
    if pw is None:
        return _weighted(_sigmoid(x) - t, w)
    pt = pw * t
    return _weighted((pt + 1 - t) * _sigmoid(x) - pt, w)


def _bcel_dtarget(x: Any, t: Any, w: Any, pw: Any) -> Any:
    if pw is None:
        return _weighted(-x, w)
    return _weighted(_log_sigmoid(-x) - _log_sigmoid(x) * pw, w)


def _vjp(deriv: Any) -> Any:
    def rule(k: Any, g: Any, s: Any, a: Any) -> Any:
        x, t, w = s[0], s[1], s[2]
        pw = s[3] if len(s) > 3 else None
        with np.errstate(all="ignore"):
            d = deriv(x, t, w, pw)
            if k is TT and a.reduction == _MEAN:
                # torch's formulas: (derivative * grad) / numel, a div.Scalar in the graph
                return k.div_scalar(d * g, _numel(x))
            return g * _scale(d, _numel(x), a.reduction)

    return rule


def _jvp(deriv: Any) -> Any:
    def rule(tan: Any, p: Any, out: Any, a: Any) -> Any:
        pw = p[3] if len(p) > 3 else None
        c = tan * deriv(p[0], p[1], p[2], pw)
        return c if a.reduction == _NONE else _REDUCE[a.reduction](c)

    return rule


class _BceAttrs(NamedTuple):  # torch's node saves the weight, with no edge
    reduction: int
    weight: Any


def _bce_weight(k: Any, a: Any) -> Any:
    return a.weight._data if k is NP and isinstance(a.weight, Tensor) else a.weight


def _bce_back(k: Any, g: Any, x: Any, t: Any, a: Any) -> Any:
    """torch's binary_cross_entropy_backward(grad, self, target, weight, reduction)."""
    with np.errstate(all="ignore"):
        d = _bce_dself(x, t, _bce_weight(k, a), None)
        return g * _scale(d, _numel(x), a.reduction)


def _bce_second(wrt_target: bool) -> Any:
    # d/dx of (x - t) / (x (1 - x)) is (x^2 - 2 x t + t) / (x (1 - x))^2 (torch's eps), d/dt
    # is -1 / (x (1 - x))
    def rule(k: Any, gg: Any, go: Any, x: Any, t: Any, a: Any) -> Any:
        with np.errstate(all="ignore"):
            if wrt_target:
                c = -1 / _clamp_min((1 - x) * x, _EPSILON)
            else:
                c = (x * x - 2 * (x * t) + t) / (
                    (x + _EPSILON) * (x + _EPSILON) * ((1 - x + _EPSILON) * (1 - x + _EPSILON))
                )
            return gg * go * _scale(_weighted(c, _bce_weight(k, a)), _numel(x), a.reduction)

    return rule


# under create_graph one BinaryCrossEntropyBackwardBackward0 (edges grad_output, self, target)
BCE_BACK = backward_op(
    "BinaryCrossEntropyBackwardBackward0",
    _bce_back,
    (_bce_second(False), _bce_second(True)),
    attrs=_BceAttrs._fields,
    saved=_PAIR_NAMES,
    summed=True,
)


BCE = node_class(
    "BinaryCrossEntropyBackward0",
    (
        lambda k, g, s, a: BCE_BACK(k, g, s[0], s[1], _BceAttrs(a.reduction, s[2])),
        _vjp(_bce_dtarget),
    ),  # fmt: skip
    saved=(Saved("self", 0, (0, 1)), Saved("target", 1, (0, 1)), Saved("weight", 2, (0, 1))),
    attrs=("reduction",),
)
set_jvp(BCE, (_jvp(_bce_dself), _jvp(_bce_dtarget), None))

BCEL = node_class(
    "BinaryCrossEntropyWithLogitsBackward0",
    (_vjp(_bcel_dself), _vjp(_bcel_dtarget)),
    saved=(
        Saved("self", 0, (0, 1)),
        Saved("target", 1, (0, 1)),
        Saved("weight", 2, (0, 1)),
        Saved("pos_weight", 3, (0, 1)),
    ),
    attrs=("reduction",),
)
set_jvp(BCEL, (_jvp(_bcel_dself), _jvp(_bcel_dtarget), None, None))


# --------------------------------------------------------------------------------------------
# the ops
# --------------------------------------------------------------------------------------------
def _check_not_differentiable(name: str, arg: str, t: Tensor | None) -> None:
    if t is not None and t._requires_grad and state.grad_enabled:
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument '{arg}'. "
            "This input cannot have requires_grad True."
        )


def _finish(
    cls: Any, name: str, x: Tensor, target: Tensor, extra: tuple[Any, ...], data: Any, red: int
) -> Tensor:
    """Wrap the loss value; attach a node with edges (self, target) saving (self, target,
    *extra) when grad flows; forward AD and the trace as every op."""
    out = object.__new__(Tensor)
    init_tensor(out, np.asarray(data, dtype=x._data.dtype), x._dtype)
    attrs = (red,)
    if (x._requires_grad or target._requires_grad) and state.grad_enabled:
        node = new_node(cls, (edge(x), edge(target)), attrs)
        node._saved = (x, target, *extra)
        node._versions = tuple(0 if t is None else _version(t) for t in node._saved)
        node._shape = out._data.shape
        node._npd = out._data.dtype
        out._grad_fn = node
        out._requires_grad = True
    ins = (x, target, *extra)
    shown = tuple(t for t in ins if t is not None)
    return finish(cls, name, ins, out, attrs, record=shown, attached=True)


def _same_size(x: Tensor, target: Tensor) -> None:
    if x._data.shape != target._data.shape:
        raise ValueError(
            f"Target size (torch.Size({list(target._data.shape)})) must be the same as input "
            f"size (torch.Size({list(x._data.shape)}))"
        )


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _MEAN
) -> Tensor:
    """torch._C._nn.binary_cross_entropy: -w (t log x + (1 - t) log(1 - x)), logs clamped at
    -100 as torch does, then the reduction."""
    _check_reduction(reduction)
    _check_not_differentiable("binary_cross_entropy", "weight", weight)
    _same_size(input, target)
    x = input._data
    t = target._data.astype(x.dtype, copy=False)
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), x.dtype.type(-100))
        log_1x = np.maximum(np.log(1 - x), x.dtype.type(-100))
    loss = (t - 1) * log_1x - t * log_x
    if weight is not None:
        loss = loss * weight._data
    loss = loss.astype(x.dtype, copy=False)
    data = loss if reduction == _NONE else _REDUCE[reduction](loss)
    return _finish(BCE, "binary_cross_entropy", input, target, (weight,), data, reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = _MEAN,
) -> Tensor:
    """torch.binary_cross_entropy_with_logits: (1 - t) x - lw log(sigmoid(x)) with
    lw = 1 + (pos_weight - 1) t, times weight, then the reduction."""
    _check_reduction(reduction)
    name = "binary_cross_entropy_with_logits"
    _check_not_differentiable(name, "weight", weight)
    _check_not_differentiable(name, "pos_weight", pos_weight)
    _same_size(input, target)
    x = input._data
    t = target._data.astype(x.dtype, copy=False)
    log_sig = _log_sigmoid(x)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight._data - 1) * t + 1)
    loss = (1 - t) * x - log_sig
    if weight is not None:
        loss = loss * weight._data
    loss = loss.astype(x.dtype, copy=False)
    data = loss if reduction == _NONE else _REDUCE[reduction](loss)
    return _finish(BCEL, name, input, target, (weight, pos_weight), data, reduction)


# --------------------------------------------------------------------------------------------
# smooth_l1_loss, huber_loss, soft_margin_loss
# --------------------------------------------------------------------------------------------
# Each is one fused node over same-shaped operands (torch.nn.functional broadcasts first).
# The elementwise derivative d loss_i / d input_i is written once for numpy arrays and
# Tensors; the target's is its negation (smooth L1, Huber) or not defined (soft margin).
def _plain(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def _piecewise(d: Any, inside: Any, scale: float, outside: Any) -> Any:
    """d * scale where `inside`, the constant `outside` elsewhere (masks are constants, so the
    same expression is differentiable when d is a Tensor)."""
    dt = _plain(d).dtype
    m = (inside * scale).astype(dt)
    c = np.where(inside, 0, outside).astype(dt)
    if isinstance(d, Tensor):
        return d * wrap(m, d._dtype) + wrap(c, d._dtype)
    return d * m + c


def _smooth_l1_d(d: Any, beta: float) -> Any:
    """torch's smooth_l1_loss_backward: sign(d) outside (-beta, beta), d / beta inside."""
    dd = _plain(d)
    return _piecewise(d, np.abs(dd) < beta, 1.0 / beta if beta else 0.0, np.sign(dd))


def _huber_d(d: Any, delta: float) -> Any:
    """torch's huber_loss_backward: delta * sign(d) outside [-delta, delta], d inside."""
    dd = _plain(d)
    return _piecewise(d, np.abs(dd) <= delta, 1.0, delta * np.sign(dd))


def _pair_jvp(deriv: Any, attr: str, sign: float) -> Any:
    def rule(tan: Any, p: Any, out: Any, a: Any) -> Any:
        c = (sign * tan) * deriv(p[0] - p[1], getattr(a, attr))
        return c if a.reduction == _NONE else _REDUCE[a.reduction](c)

    return rule


def _pair_backward_op(name: str, deriv: Any, attr: str, curvature: Any) -> Any:
    """torch's `*_loss_backward(grad_output, self, target)` as one op: `deriv(d, param)` the
    derivative in d = self - target, `curvature(d, param)` the (piecewise constant) second."""

    def back(k: Any, g: Any, x: Any, t: Any, a: Any) -> Any:
        d = x - t
        return g * _scale(deriv(d, getattr(a, attr)), _numel(d), a.reduction)

    def second(sign: float) -> Any:
        def rule(k: Any, gg: Any, go: Any, x: Any, t: Any, a: Any) -> Any:
            d = k.data(x) - k.data(t)
            c = _scale(curvature(d, getattr(a, attr)), d.size, a.reduction) * sign
            return gg * go * k.const(c.astype(d.dtype, copy=False))

        return rule

    pair = ("grad_output", "self", "target")
    return backward_op(
        name, back, (second(1.0), second(-1.0)), ("reduction", attr), pair, summed=True
    )


SMOOTH_L1_BACK = _pair_backward_op(
    "SmoothL1LossBackwardBackward0",
    _smooth_l1_d,
    "beta",
    lambda d, beta: (np.abs(d) < beta) * (1.0 / beta if beta else 0.0),
)
HUBER_BACK = _pair_backward_op(
    "HuberLossBackwardBackward0", _huber_d, "delta", lambda d, delta: np.abs(d) <= delta
)
_PAIR_SAVED = (Saved("self", 0, (0, 1)), Saved("target", 1, (0, 1)))
SMOOTH_L1 = node_class(
    "SmoothL1LossBackward0",
    (
        lambda k, g, s, a: SMOOTH_L1_BACK(k, g, s[0], s[1], a),
        lambda k, g, s, a: SMOOTH_L1_BACK(k, g, s[1], s[0], a),
    ),
    saved=_PAIR_SAVED,
    attrs=("reduction", "beta"),
)
set_jvp(SMOOTH_L1, (_pair_jvp(_smooth_l1_d, "beta", 1.0), _pair_jvp(_smooth_l1_d, "beta", -1.0)))
HUBER = node_class(
    "HuberLossBackward0",
    (
        lambda k, g, s, a: HUBER_BACK(k, g, s[0], s[1], a),
        lambda k, g, s, a: HUBER_BACK(k, g, s[1], s[0], a),
    ),
    saved=_PAIR_SAVED,
    attrs=("reduction", "delta"),
)
set_jvp(HUBER, (_pair_jvp(_huber_d, "delta", 1.0), _pair_jvp(_huber_d, "delta", -1.0)))


def _soft_margin_d(x: Any, t: Any) -> Any:
    """torch's soft_margin_loss_backward: -t z / (1 + z) with z = exp(-t x)."""
    z = (-t * x).exp() if isinstance(x, Tensor) else np.exp(-t * x)
    return -t * z / (z + 1)


def _soft_margin_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    with np.errstate(all="ignore"):
        return g * _scale(_soft_margin_d(s[0], s[1]), _numel(s[0]), a.reduction)


def _soft_margin_jvp(tan: Any, p: Any, out: Any, a: Any) -> Any:
    c = tan * _soft_margin_d(p[0], p[1])
    return c if a.reduction == _NONE else _REDUCE[a.reduction](c)


SOFT_MARGIN = node_class(
    "SoftMarginLossBackward0",
    (_soft_margin_vjp,),
    saved=(Saved("self", 0, (0,)), Saved("target", 1, (0,))),
    attrs=("reduction",),
)
set_jvp(SOFT_MARGIN, (_soft_margin_jvp,))


def _pair_finish(
    cls: Any, name: str, x: Tensor, target: Tensor, data: Any, attrs: tuple[Any, ...]
) -> Tensor:
    """Wrap a pairwise loss value; the node has edges (self, target), saves both."""
    out = object.__new__(Tensor)
    init_tensor(out, np.asarray(data, dtype=x._data.dtype), x._dtype)
    if (x._requires_grad or target._requires_grad) and state.grad_enabled:
        edges = (edge(x), edge(target)) if len(cls._vjps) == 2 else (edge(x),)
        node = new_node(cls, edges, attrs)
        node._saved = (x, target)
        node._versions = (_version(x), _version(target))
        node._shape = out._data.shape
        node._npd = out._data.dtype
        out._grad_fn = node
        out._requires_grad = True
    return finish(cls, name, (x, target), out, attrs, record=(x, target), attached=True)


def _pair_data(input: Tensor, target: Tensor) -> tuple[Any, Any]:
    _same_size(input, target)
    x = input._data
    return x, target._data.astype(x.dtype, copy=False)


def smooth_l1_loss(input: Tensor, target: Tensor, reduction: int = _MEAN, beta: float = 1.0):
    """torch._C._nn.smooth_l1_loss: 0.5 d^2 / beta where |d| < beta, else |d| - beta / 2."""
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, t = _pair_data(input, target)
    d = x - t
    ad = np.abs(d)
    loss = np.where(ad < beta, 0.5 * d * d / (beta or 1.0), ad - 0.5 * beta).astype(x.dtype)
    data = loss if reduction == _NONE else _REDUCE[reduction](loss)
    return _pair_finish(SMOOTH_L1, "smooth_l1_loss", input, target, data, (reduction, beta))


def huber_loss(input: Tensor, target: Tensor, reduction: int = _MEAN, delta: float = 1.0):
    """torch._C._nn.huber_loss: 0.5 d^2 where |d| <= delta, else delta (|d| - delta / 2)."""
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, t = _pair_data(input, target)
    d = x - t
    ad = np.abs(d)
    loss = np.where(ad <= delta, 0.5 * d * d, delta * (ad - 0.5 * delta)).astype(x.dtype)
    data = loss if reduction == _NONE else _REDUCE[reduction](loss)
    return _pair_finish(HUBER, "huber_loss", input, target, data, (reduction, delta))


def soft_margin_loss(input: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    """torch._C._nn.soft_margin_loss: log(1 + exp(-target * input))."""
    _check_reduction(reduction)
    _check_not_differentiable("soft_margin_loss", "target", target)
    x, t = _pair_data(input, target)
    with np.errstate(over="ignore"):
        loss = np.log1p(np.exp(-t * x)).astype(x.dtype)
    data = loss if reduction == _NONE else _REDUCE[reduction](loss)
    return _pair_finish(SOFT_MARGIN, "soft_margin_loss", input, target, data, (reduction,))


# --------------------------------------------------------------------------------------------
# the pieces of torch's composite distance and margin losses: clamp_min, at::norm
# --------------------------------------------------------------------------------------------
# NOTE: torch.nn.functional builds normalize, pairwise_distance and the margin losses from
# clamp_min (ClampMinBackward0) and at::norm (NormBackward1, the same rule as
# LinalgVectorNormBackward0 under torch's older name), so their graphs read like torch's.
CLAMP_MIN = node_class(
    "ClampMinBackward0",
    (lambda k, g, s, a: k.where0(k.data(s[0]) >= a.min, g),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("min",),
)
set_jvp(CLAMP_MIN, (lambda t, p, o, a: np.where(p[0] >= a.min, t, 0),))


def clamp_min(x: Tensor, min: float) -> Tensor:  # noqa: A002 - torch's name
    """torch.clamp_min(x, min) with a number bound."""
    low = x._data.dtype.type(min) if x._dtype.is_floating_point else min
    data = np.maximum(x._data, low).astype(x._data.dtype, copy=False)
    return apply(CLAMP_MIN, "clamp_min", (x,), data, x._dtype, (min,))


NORM1 = node_class(
    "NormBackward1",
    stats.NORM._vjps,
    saved=(Saved("self", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("dim", "keepdim", "p"),
)
set_jvp(NORM1, stats.NORM._jvp)


def _p_norm(a: Any, p: float, axis: Any, keepdim: bool) -> Any:
    a = np.abs(a)
    if p == np.inf:
        return np.max(a, axis=axis, keepdims=keepdim)
    if p == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdim)
    if p == 1:
        return np.sum(a, axis=axis, keepdims=keepdim)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    return np.sum(a**p, axis=axis, keepdims=keepdim) ** (1.0 / p)


def norm_p_dim(x: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """at::norm(x, p, dim, keepdim), the p-norm over one dim (NormBackward1)."""
    nd = x._data.ndim
    axis = dim % max(1, nd)
    with np.errstate(all="ignore"):
        data = _p_norm(x._data, float(p), axis if nd else None, keepdim)
    data = np.asarray(data, dtype=x._data.dtype)
    return apply(NORM1, "norm", (x,), data, x._dtype, ((axis,), keepdim, float(p)))
