"""The activation functions of torch.nn.functional that are not Tensor methods: leaky_relu,
elu, gelu, silu, softplus, hardtanh (relu6 is hardtanh(0, 6)), their in-place forms, and
the erf op GELU's create_graph backward is written with. Rows, forwards and JVPs side by side.

Each op has one derivative rule `_x_back(k, g, x, a)` -> the input gradient for the incoming
gradient `g` (torch's `*_backward` kernel, same operation order), shared by the vjp (`k` NP
or TT) and the JVP (`k` NP, `g` the tangent): every op here is elementwise, so its JVP is its
backward applied to the tangent, as in torch's derivatives.yaml. Under create_graph that
kernel is one op (`rules.backward_op`: `LeakyReluBackwardBackward0`, ...), whose input
derivative `_x_second(k, gg, g, x, a)` is `gg * g * f''(x)` (zero for piecewise-linear ones).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine.function import inplace, unary
from detachviz.engine.node import RESULT, Saved, node_class
from detachviz.engine.rules import NP, backward_op, zero_input
from detachviz.engine.tensor import Tensor

SQRT1_2 = math.sqrt(0.5)
# d/dx Phi(x) = exp(-x^2/2) / sqrt(2 pi), and the tanh approximation's sqrt(2/pi)
PDF_SCALE = 2 / math.sqrt(math.pi) * SQRT1_2 * 0.5
TANH_BETA = math.sqrt(2.0) * (2 / math.sqrt(math.pi)) * 0.5
TANH_KAPPA = 0.044715

_erf_np = np.frompyfunc(math.erf, 1, 1)


def erf_np(a: Any) -> Any:
    """erf elementwise (numpy has none): evaluated in float64, cast to the input's dtype."""
    return np.asarray(_erf_np(np.asarray(a, dtype=np.float64)), dtype=np.float64).astype(
        a.dtype, copy=False
    )


def _quiet(fn: Any) -> Any:
    """Run `fn` without numpy's floating-point warnings: torch's kernels never warn, and an
    overflow in the branch np.where discards (or an inf input) is not the user's concern."""

    def run(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args)

    run.__name__ = fn.__name__
    return run


def _floating(x: Tensor, kernel: str) -> None:
    if not x._dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{x._dtype.legacy.removesuffix('Tensor')}'"
        )


def _is_np(k: Any) -> bool:
    return k is NP


def _tanh(k: Any, x: Any) -> Any:
    return np.tanh(x) if _is_np(k) else x.tanh()


def _erf(k: Any, x: Any) -> Any:
    return erf_np(x) if _is_np(k) else erf(x)


def _min(k: Any, x: Any, c: float) -> Any:
    """min(x, c): keeps an exp of the branch np.where discards from overflowing."""
    return np.minimum(x, c) if _is_np(k) else x.clamp(max=c)


def _where(k: Any, mask: Any, yes: Any, no: Any) -> Any:
    if _is_np(k):
        return np.where(mask, yes, no)
    return k.where0(mask, yes) + k.where0(~mask, no)


# ------------------------------------------------------------------------------- erf

ERF = node_class(
    "ErfBackward0",
    # 2 / sqrt(pi) * exp(-(self.pow(2))) * grad, as derivatives.yaml (its create_graph graph)
    (lambda k, g, s, a: k.mul_scalar(k.exp(-k.square(s[0])), 2 / math.sqrt(math.pi)) * g,),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: t * (2 / math.sqrt(math.pi)) * np.exp(-(p[0] * p[0])),),
)


def erf(x: Tensor) -> Tensor:
    return unary(ERF, erf_np, "erf", x)


# ------------------------------------------------------------------------ leaky_relu


@_quiet
def _leaky_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    return _where(k, k.data(x) > 0, g, g * a.negative_slope)


LEAKY_BACK = backward_op(
    "LeakyReluBackwardBackward0",
    _leaky_back,
    zero_input,
    attrs=("negative_slope",),
    saved=(None, "self"),
)
LEAKY_RELU = node_class(
    "LeakyReluBackward0",
    (lambda k, g, s, a: LEAKY_BACK(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("negative_slope",),
    jvp=(lambda t, p, o, a: _leaky_back(NP, t, p[0], a),),
)
# in place, torch saves the result (its sign is the input's for a positive slope)
LEAKY_RELU_ = node_class(
    "LeakyReluBackward1",
    (lambda k, g, s, a: LEAKY_BACK(k, g, s[0], a),),
    saved=(Saved("result", RESULT, (0,)),),
    attrs=("negative_slope",),
    jvp=(lambda t, p, o, a: _leaky_back(NP, t, o, a),),
)


def _leaky_np(slope: float) -> Any:
    return _quiet(lambda a: np.where(a > 0, a, a * slope).astype(a.dtype, copy=False))


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    _floating(x, "leaky_relu_cpu")
    return unary(LEAKY_RELU, _leaky_np(negative_slope), "leaky_relu", x, (negative_slope,))


def leaky_relu_(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    _floating(x, "leaky_relu_cpu")
    return inplace(x, "leaky_relu_", LEAKY_RELU_, _leaky_np(negative_slope), (), (negative_slope,))


# ------------------------------------------------------------------------------- elu


@_quiet
def _elu_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    neg = (g * a.input_scale) * (a.alpha * a.scale) * k.exp(_min(k, x, 0.0) * a.input_scale)
    # torch tests `x <= 0`: a nan input takes the positive branch
    return _where(k, ~(k.data(x) <= 0), g * a.scale, neg)


@_quiet
def _elu_back_result(k: Any, g: Any, y: Any, a: Any) -> Any:
    return _where(k, ~(k.data(y) <= 0), g * a.scale, (g * a.input_scale) * (y + a.alpha * a.scale))


@_quiet
def _elu_second(k: Any, gg: Any, g: Any, x: Any, a: Any) -> Any:
    c = a.alpha * a.scale * a.input_scale * a.input_scale
    return k.where0(k.data(x) <= 0, (gg * g) * c * k.exp(_min(k, x, 0.0) * a.input_scale))


@_quiet
def _elu_back_either(k: Any, g: Any, v: Any, a: Any) -> Any:
    """torch's elu_backward(grad, ..., is_result, self_or_result): `v` is the input, or the
    result for the in-place elu_ (which saves only that)."""
    return _elu_back_result(k, g, v, a) if a.is_result else _elu_back(k, g, v, a)


@_quiet
def _elu_second_either(k: Any, gg: Any, g: Any, v: Any, a: Any) -> Any:
    if a.is_result:
        # d/dy of g * input_scale * (y + alpha * scale) on the negative branch
        return k.where0(k.data(v) <= 0, (gg * g) * a.input_scale)
    return _elu_second(k, gg, g, v, a)


# NOTE: `is_result` is an attribute of the forward nodes only for their rules (torch's
# EluBackward0/1 show none: it is which of them they are); the double-backward node shows it
ELU_ATTRS = ("alpha", "scale", "input_scale", "is_result")
ELU_BACK = backward_op(
    "EluBackwardBackward0",
    _elu_back_either,
    _elu_second_either,
    attrs=ELU_ATTRS,
    saved=("grad_output", "self_or_result"),
)
ELU = node_class(
    "EluBackward0",
    (lambda k, g, s, a: ELU_BACK(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    attrs=ELU_ATTRS,
    jvp=(lambda t, p, o, a: _elu_back(NP, t, p[0], a),),
)
ELU_ = node_class(
    "EluBackward1",
    (lambda k, g, s, a: ELU_BACK(k, g, s[0], a),),
    saved=(Saved("result", RESULT, (0,)),),
    attrs=ELU_ATTRS,
    jvp=(lambda t, p, o, a: _elu_back_result(NP, t, o, a),),
)
delattr(ELU, "_saved_is_result")
delattr(ELU_, "_saved_is_result")


def _elu_np(alpha: float) -> Any:
    @_quiet
    def fn(a: Any) -> Any:
        neg = alpha * np.expm1(np.minimum(a, 0))
        return np.where(a > 0, a, neg).astype(a.dtype, copy=False)

    return fn


def elu(x: Tensor, alpha: float = 1.0) -> Tensor:
    _floating(x, "elu_cpu")
    return unary(ELU, _elu_np(alpha), "elu", x, (alpha, 1, 1, False))


def elu_(x: Tensor, alpha: float = 1.0) -> Tensor:
    _floating(x, "elu_cpu")
    return inplace(x, "elu_", ELU_, _elu_np(alpha), (), (alpha, 1, 1, True))


# ------------------------------------------------------------------------------ gelu


@_quiet
def _gelu_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    if a.approximate == "tanh":
        inner = TANH_BETA * (x + TANH_KAPPA * (x * x * x))
        th = _tanh(k, inner)
        left_d = 0.5 * (1 + th)
        right_d = (0.5 * x) * (1 - th * th) * (TANH_BETA * (1 + 3 * TANH_KAPPA * (x * x)))
        return g * (left_d + right_d)
    cdf = 0.5 * (1 + _erf(k, x * SQRT1_2))
    pdf = k.exp(-0.5 * (x * x)) * PDF_SCALE
    return g * (cdf + x * pdf)


@_quiet
def _gelu_second(k: Any, gg: Any, g: Any, x: Any, a: Any) -> Any:
    if a.approximate == "tanh":
        du = TANH_BETA * (1 + 3 * TANH_KAPPA * (x * x))
        th = _tanh(k, TANH_BETA * (x + TANH_KAPPA * (x * x * x)))
        sech2 = 1 - th * th
        curve = du + (0.5 * x) * ((6 * TANH_BETA * TANH_KAPPA) * x - 2 * th * (du * du))
        return (gg * g) * (sech2 * curve)
    pdf = k.exp(-0.5 * (x * x)) * PDF_SCALE
    return (gg * g) * (pdf * (2 - x * x))


GELU_BACK = backward_op("GeluBackwardBackward0", _gelu_back, _gelu_second, attrs=("approximate",))
GELU = node_class(
    "GeluBackward0",
    (lambda k, g, s, a: GELU_BACK(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("approximate",),
    jvp=(lambda t, p, o, a: _gelu_back(NP, t, p[0], a),),
)


@_quiet
def _gelu_none_np(a: Any) -> Any:
    x = np.asarray(a, dtype=np.float64)
    return (x * 0.5 * (1 + erf_np(x * SQRT1_2))).astype(a.dtype, copy=False)


@_quiet
def _gelu_tanh_np(a: Any) -> Any:
    inner = TANH_BETA * (a + TANH_KAPPA * (a * a * a))
    return (0.5 * a * (1 + np.tanh(inner))).astype(a.dtype, copy=False)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    _floating(x, "GeluKernelImpl")
    if approximate == "none":
        fn = _gelu_none_np
    elif approximate == "tanh":
        fn = _gelu_tanh_np
    else:
        raise RuntimeError("approximate argument must be either none or tanh.")
    return unary(GELU, fn, "gelu", x, (approximate,))


# ------------------------------------------------------------------------------ silu


def _sigmoid(k: Any, x: Any) -> Any:
    return 1 / (1 + k.exp(-x))


@_quiet
def _silu_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    sig = _sigmoid(k, x) if k is NP else x.sigmoid()
    return g * sig * k.add_scalar(x * k.rsub_scalar(1, sig), 1)


SILU = node_class(
    "SiluBackward0",
    (lambda k, g, s, a: _silu_back(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: _silu_back(NP, t, p[0], a),),
)


@_quiet
def _silu_np(a: Any) -> Any:
    return (a / (1 + np.exp(-a))).astype(a.dtype, copy=False)


def silu(x: Tensor) -> Tensor:
    _floating(x, "silu_cpu")
    return unary(SILU, _silu_np, "silu", x)


def silu_(x: Tensor) -> Tensor:
    _floating(x, "silu_cpu")
    return inplace(x, "silu_", SILU, _silu_np)


# -------------------------------------------------------------------------- softplus


@_quiet
def _softplus_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    z = k.exp(_min(k, x * a.beta, a.threshold))
    return _where(k, k.data(x) * a.beta > a.threshold, g, g * z / (z + 1))


@_quiet
def _softplus_second(k: Any, gg: Any, g: Any, x: Any, a: Any) -> Any:
    z = k.exp(_min(k, x * a.beta, a.threshold))
    curve = (gg * g) * (a.beta * z / ((z + 1) * (z + 1)))
    return k.where0(~(k.data(x) * a.beta > a.threshold), curve)


SOFTPLUS_BACK = backward_op(
    "SoftplusBackwardBackward0", _softplus_back, _softplus_second, attrs=("beta", "threshold")
)
SOFTPLUS = node_class(
    "SoftplusBackward0",
    (lambda k, g, s, a: SOFTPLUS_BACK(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("beta", "threshold"),
    jvp=(lambda t, p, o, a: _softplus_back(NP, t, p[0], a),),
)


def softplus(x: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    _floating(x, "softplus_cpu")

    @_quiet
    def fn(a: Any) -> Any:
        xb = a * beta
        soft = np.log1p(np.exp(np.minimum(xb, threshold))) / beta
        return np.where(xb > threshold, a, soft).astype(a.dtype, copy=False)

    return unary(SOFTPLUS, fn, "softplus", x, (beta, threshold))


# -------------------------------------------------------------------------- hardtanh


def _hardtanh_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    xd = k.data(x)  # torch zeroes where `x <= min || x >= max`: a nan input passes g on
    return k.where0(~((xd <= a.min_val) | (xd >= a.max_val)), g)


HARDTANH_BACK = backward_op(
    "HardtanhBackwardBackward0",
    _hardtanh_back,
    zero_input,
    attrs=("min_val", "max_val"),
    saved=(None, "self"),
)
HARDTANH = node_class(
    "HardtanhBackward0",
    (lambda k, g, s, a: HARDTANH_BACK(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("min_val", "max_val"),
    jvp=(lambda t, p, o, a: _hardtanh_back(NP, t, p[0], a),),
)


def _hardtanh_np(lo: float, hi: float) -> Any:
    return lambda a: np.minimum(np.maximum(a, lo), hi).astype(a.dtype, copy=False)


def hardtanh(x: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return unary(HARDTANH, _hardtanh_np(min_val, max_val), "hardtanh", x, (min_val, max_val))


def hardtanh_(x: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    fn = _hardtanh_np(min_val, max_val)
    return inplace(x, "hardtanh_", HARDTANH, fn, (), (min_val, max_val))
