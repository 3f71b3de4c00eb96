"""Forward-mode AD whose tangents have a history: the backward-of-forward.

When an op inside a dual level has an input that requires grad (a primal, say a module's
parameter, or a tangent) and grad mode is on, torch computes the output's tangent with
autograd ops, so `unpack_dual(out).tangent` has a `grad_fn` and
`tangent.sum().backward()` differentiates the JVP w.r.t. the primal and tangent leaves.
Here the tangent is then built from engine ops, by one of three kinds of rule:

- elementwise ops (the JVP for input i is that input's VJP applied to its tangent, as the
  Jacobian is diagonal): the node class's own backward rules run on the `TT` kernels, so the
  tangent of tanh is torch's `TanhBackwardBackward0`, of relu `ThresholdBackwardBackward0`;
- ops linear in one input (sum, mean, views): the same op applied to the tangent;
- a few whole-op rules (mm, mv, addmm, softmax, log_softmax, mse_loss).

Where torch's formula is a sum of per-input terms (mul, add, sub, mm, mv, addmm) and an input
has no tangent, torch computes its term with an (efficient) zero tangent, so the tangent's
grad_fn is `AddBackward0` and it depends on the primals even when one term is real; here the
term is computed with a zero tensor too. An op with none of these rules gets a
tangent whose backward raises (NotImplementedError), never a tangent silently without history.
The fast numpy path (engine/forward_ad.py) stays for everything that needs no history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import function as kit
from detachviz.engine import state, trace
from detachviz.engine.function import apply
from detachviz.engine.node import Node, node_class
from detachviz.engine.rules import TT
from detachviz.engine.tensor import Tensor, wrap

# node classes whose VJP for each input, applied to that input's tangent, is its JVP term
ELEMENTWISE = frozenset(
    """AbsBackward0 AddBackward0 AddBackward1 ClampBackward1 CosBackward0 DivBackward0
    DivBackward1 EluBackward0 ExpBackward0 Expm1Backward0 GeluBackward0 HardtanhBackward0
    LeakyReluBackward0 Log1pBackward0 LogBackward0 MulBackward0 MulBackward1 NegBackward0
    PowBackward0 PowBackward1 ReciprocalBackward0 ReluBackward0 RsqrtBackward0 RsubBackward1
    SigmoidBackward0 SiluBackward0 SinBackward0 SoftplusBackward0 SqrtBackward0 SubBackward0
    TanhBackward0 ThresholdBackward0""".split()
)

# single-input linear ops: the op itself on the tangent (t, primal inputs, output, attrs)
LINEAR: dict[str, Callable[[Tensor, tuple[Any, ...], Tensor, Any], Tensor]] = {
    "CloneBackward0": lambda t, p, out, a: t.clone(),
    "ExpandBackward0": lambda t, p, out, a: t.expand(*out.shape),
    "MeanBackward0": lambda t, p, out, a: t.mean(),
    "MeanBackward1": lambda t, p, out, a: t.mean(a.dim, a.keepdim),
    "PermuteBackward0": lambda t, p, out, a: t.permute(*a.dims),
    "SelectBackward0": lambda t, p, out, a: t[(slice(None),) * a.dim + (a.index,)],
    "SqueezeBackward0": lambda t, p, out, a: t.squeeze(),
    "SqueezeBackward1": lambda t, p, out, a: t.squeeze(a.dim),
    "SumBackward0": lambda t, p, out, a: t.sum(),
    "SumBackward1": lambda t, p, out, a: t.sum(a.dim, a.keepdim),
    "TBackward0": lambda t, p, out, a: t.t(),
    "TransposeBackward0": lambda t, p, out, a: t.transpose(a.dim0, a.dim1),
    "UnsqueezeBackward0": lambda t, p, out, a: t.unsqueeze(a.dim),
    "ViewBackward0": lambda t, p, out, a: t.reshape(*out.shape),
}

Terms = list[Any]


def _mm(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [None if t[0] is None else t[0].mm(p[1]), None if t[1] is None else p[0].mm(t[1])]


def _mv(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [None if t[0] is None else t[0].mv(p[1]), None if t[1] is None else p[0].mv(t[1])]


def _scaled(x: Any, k: Any) -> Any:
    return x if x is None or k == 1 else x * k


def _addmm(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    bias = None if t[0] is None else _scaled(t[0].expand(*out.shape), a.beta)
    m1 = None if t[1] is None else _scaled(t[1].mm(p[2]), a.alpha)
    m2 = None if t[2] is None else _scaled(p[1].mm(t[2]), a.alpha)
    return [bias, m1, m2]


def _softmax(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [out * (t[0] - (out * t[0]).sum(a.dim, True))]


def _log_softmax(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [t[0] - (out.exp() * t[0]).sum(a.dim, True)]


def _mse_loss(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    # torch: mse_loss_backward(self_t, self_p, target_p, none) + the same with self and target
    # swapped (both MseLossBackwardBackward0), then the loss's reduction; a reduced tangent is
    # copied onto zeros of the loss's layout (_set_fw_grad's CopyBackwards)
    from detachviz.engine.ops.loss import MSE_BACK  # loaded: mse_loss just ran

    unreduced = type(a)(0)
    d = MSE_BACK(TT, t[0], p[0], p[1], unreduced) + MSE_BACK(TT, t[1], p[1], p[0], unreduced)
    if a.reduction == 0:
        return [d]
    d = d.mean() if a.reduction == 1 else d.sum()
    return [wrap(np.zeros(out._data.shape, out._data.dtype), out._dtype).copy_(d)]


def _sub(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [t[0] - _scaled(t[1], a.alpha)]  # torch: self_t - maybe_multiply(other_t, alpha)


def _mul(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [t[1] * p[0], t[0] * p[1]]  # torch: other_t * self_p + self_t * other_p


def _div(t: list[Any], p: tuple[Any, ...], out: Tensor, a: Any) -> Terms:
    return [(t[0] - t[1] * out) / p[1]]  # torch: (self_t - other_t * result) / other_p


# whole-op rules: the list of terms (one per input, None where absent) to add up
WHOLE: dict[str, Callable[[list[Any], tuple[Any, ...], Tensor, Any], Terms]] = {
    "AddmmBackward0": _addmm,
    "DivBackward0": _div,
    "LogSoftmaxBackward0": _log_softmax,
    "MmBackward0": _mm,
    "MseLossBackward0": _mse_loss,
    "MulBackward0": _mul,
    "MvBackward0": _mv,
    "SoftmaxBackward0": _softmax,
    "SubBackward0": _sub,
}
# formulas torch writes as a sum over the inputs (an absent tangent adds a zero tensor)
SUMMED = frozenset(
    """AddBackward0 AddmmBackward0 DivBackward0 MmBackward0 MseLossBackward0 MulBackward0
    MvBackward0 SubBackward0""".split()
)

# the primal unpack_dual returns, and each primal a tangent formula reads (torch's
# _fw_primal), is an alias whose backward torch names `Identity`
IDENTITY = node_class("Identity", (lambda k, g, s, a: g,), jvp=(None,))  # primal: no tangent
IDENTITY._name = "torch::autograd::Identity"  # its name(), as torch's C++ node


def _fw_primal(x: Any) -> Any:
    """x as a tangent formula reads it: torch's _fw_primal, behind an Identity node when x
    requires grad (one per input of the op, shared by the formula's uses of it)."""
    if not (isinstance(x, Tensor) and x._requires_grad):
        return x
    return kit.view(IDENTITY, "_fw_primal", x, x._data.view())


def _zero_for(x: Any, out: Tensor) -> Tensor | None:
    """The zero tangent torch uses for an input without one (None: not a tensor or number)."""
    if isinstance(x, Tensor):
        return wrap(np.zeros(x._data.shape, out._data.dtype), out._dtype)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return wrap(np.zeros((), out._data.dtype), out._dtype)
    return None


def _no_jvp_backward(k: Any, g: Any, s: Any, a: Any) -> Any:
    raise NotImplementedError(
        "detachviz cannot differentiate this forward-AD tangent: its op has no differentiable "
        "JVP rule in detachviz"
    )


def _no_rule_node(n: int) -> type[Node]:
    cls = _NO_RULE.get(n)
    if cls is None:
        cls = _NO_RULE[n] = node_class("ForwardADNotDifferentiable", (_no_jvp_backward,) * n)
    return cls


_NO_RULE: dict[int, type[Node]] = {}


def _terms(cls: type[Node], tans: list[Any], ins: tuple[Any, ...], out: Tensor, a: Any) -> Any:
    name = cls._name
    whole = WHOLE.get(name)
    if whole is not None:
        return whole(tans, ins, out, a)
    lin = LINEAR.get(name)
    if lin is not None:
        return [None if tans[0] is None else lin(tans[0], ins, out, a)]
    if name in ELEMENTWISE:
        saved = tuple(out if k < 0 else ins[k] for k in cls._save_src)
        return [
            None if t is None else vjp(TT, t, saved, a)
            for vjp, t in zip(cls._vjps, tans, strict=False)
        ]
    return None


def tangent(
    cls: type[Node], ins: tuple[Any, ...], out: Tensor, a: Any, fallback: Callable[[], Any]
) -> Tensor:
    """The tangent of `out` as a Tensor with history (its inputs' tangents are Tensors);
    `fallback()` gives the plain array for ops without a differentiable rule."""
    tans = [x._fw_tangent if isinstance(x, Tensor) else None for x in ins]
    if cls._name in SUMMED:
        # torch's formula has a term per input; an absent tangent is an (efficient) zero
        tans = [_zero_for(x, out) if t is None else t for x, t in zip(ins, tans, strict=True)]
    hooks, recorder = state.fw_hooks, trace.RECORDER
    state.fw_hooks = None  # the rule's own ops carry no tangents
    trace.RECORDER = None  # nor are they script ops in the drawing
    try:
        with np.errstate(all="ignore"):
            terms = _terms(cls, tans, tuple(_fw_primal(x) for x in ins), out, a)
            if terms is None:
                return _refusing(ins, tans, out, fallback())
            res = None
            for c in terms:
                if c is not None:
                    res = c if res is None else res + c
            if res is None:
                res = wrap(np.zeros(out._data.shape, out._data.dtype), out._dtype)
            elif any(res is t for t in tans):
                res = res.clone()  # never the input's own tangent object
            if tuple(res.shape) != tuple(out.shape):
                res = res.expand(*out.shape)
            if res._dtype is not out._dtype:
                res = res.to(out._dtype)
            return res
    finally:
        state.fw_hooks, trace.RECORDER = hooks, recorder


def _refusing(ins: tuple[Any, ...], tans: list[Any], out: Tensor, data: Any) -> Tensor:
    """The tangent's values, with a node whose backward refuses."""
    srcs = tuple(
        x
        for x in (*ins, *tans, out)
        if isinstance(x, Tensor) and x._requires_grad and x is not None
    )
    arr = np.zeros(out._data.shape, out._data.dtype) if data is None else data
    arr = np.array(np.broadcast_to(arr, out._data.shape), dtype=out._data.dtype)
    return apply(_no_rule_node(len(srcs)), "forward_ad_tangent", srcs, arr, out._dtype)
