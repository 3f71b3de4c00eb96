"""Binary cross-entropy losses as torch's fused ops, with their nodes.

`BinaryCrossEntropyBackward0` (torch._C._nn.binary_cross_entropy) and
`BinaryCrossEntropyWithLogitsBackward0` (torch.binary_cross_entropy_with_logits) have torch's
two edges (self, target) and save self, target, weight (and pos_weight), as torch's nodes do;
weight and pos_weight are not differentiable (torch refuses them when they require grad).
The derivative formulas are torch's (FunctionsManual.cpp) and are written once for numpy
arrays and Tensors, so create_graph=True builds a differentiable graph from the same rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import grad_mode, ops, trace
from detachviz.engine.loss import _MEAN, _NONE, _REDUCE, _check_reduction, _version
from detachviz.engine.node import new_node, node_class
from detachviz.engine.tensor import Tensor, _edge, _init

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
    def rule(F: Any, g: Any, s: Any, a: Any) -> Any:
        x, t, w = s[0], s[1], s[2]
        pw = s[3] if len(s) > 3 else None
        with np.errstate(all="ignore"):
            d = deriv(x, t, w, pw)
            return g * _scale(d, _numel(x), a[0])

    return rule


def _jvp(deriv: Any) -> Any:
    def rule(tan: Any, p: Any, out: Any, a: Any) -> Any:
        pw = p[3] if len(p) > 3 else None
        c = tan * deriv(p[0], p[1], p[2], pw)
        return c if a[0] == _NONE else _REDUCE[a[0]](c)

    return rule


BCE = node_class(
    "BinaryCrossEntropyBackward0",
    (_vjp(_bce_dself), _vjp(_bce_dtarget)),
    saved=(("self", 0, 3), ("target", 1, 3), ("weight", 2, 3)),
    attrs=("reduction",),
)
BCE._jvp = (_jvp(_bce_dself), _jvp(_bce_dtarget), None)  # type: ignore[assignment]

BCEL = node_class(
    "BinaryCrossEntropyWithLogitsBackward0",
    (_vjp(_bcel_dself), _vjp(_bcel_dtarget)),
    saved=(("self", 0, 3), ("target", 1, 3), ("weight", 2, 3), ("pos_weight", 3, 3)),
    attrs=("reduction",),
)
BCEL._jvp = (_jvp(_bcel_dself), _jvp(_bcel_dtarget), None, None)  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------
# the ops
# --------------------------------------------------------------------------------------------
def _check_not_differentiable(name: str, arg: str, t: Tensor | None) -> None:
    if t is not None and t._requires_grad and grad_mode._enabled:
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
    _init(out, np.asarray(data, dtype=x._data.dtype), x._dtype)
    attrs = (red,)
    if (x._requires_grad or target._requires_grad) and grad_mode._enabled:
        node = new_node(cls, (_edge(x), _edge(target)), attrs)
        node._saved = (x, target, *extra)
        node._versions = tuple(0 if t is None else _version(t) for t in node._saved)
        node._shape = out._data.shape
        node._npd = out._data.dtype
        out._grad_fn = node
        out._requires_grad = True
    ins = (x, target, *extra)
    if ops._FW is not None:
        ops._FW.op(cls, ins, out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, tuple(t for t in ins if t is not None), (out,))
    return out


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
