"""The special functions of torch and torch.special: erf (the node and kernel of the op GELU's
create_graph backward is written with, activation.py; here with int inputs promoted), erfc,
erfinv, lgamma, digamma, polygamma, mvlgamma, i0 (and torch.special.i1), sinc, logit, with
their rows, JVPs and in-place forms (derivatives.yaml's formulas).

numpy has none of these, so each is evaluated here in float64 (math.erfc / math.lgamma per
element, series and recurrences for digamma, polygamma and the Bessel functions) and cast to
the input's dtype: float32 results are the correctly rounded value, which torch's float32
kernels also give for nearly every input (they may differ from it in the last bit).
Integer inputs promote to the default float dtype, as torch's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine import state, transcendental
from detachviz.engine.function import apply, inplace, unary
from detachviz.engine.node import Node, Saved, node_class
from detachviz.engine.ops.activation import ERF, erf_np
from detachviz.engine.rules import NP
from detachviz.engine.tensor import Tensor

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_F64 = np.float64


def _float64(fn: Any) -> Any:
    """`fn` on float64 values, cast back to the input's dtype (numpy warnings silenced:
    torch's kernels never warn)."""

    def run(a: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(fn(np.asarray(a, dtype=_F64))).astype(a.dtype, copy=False)

    return run


def _is_np(k: Any) -> bool:
    return k is NP


def _op(cls: type[Node] | None, fn: Any, name: str, x: Tensor, attrs: tuple = ()) -> Tensor:
    """A unary special function: integer inputs promote to the default float dtype."""
    if not x._dtype.is_floating_point:
        dt = state.default_dtype
        return apply(cls, name, (x,), fn(x._data.astype(dt.np)), dt, attrs)
    return unary(cls, fn, name, x, attrs)  # type: ignore[arg-type]


def _inplace_op(cls: type[Node], fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return inplace(x, name, cls, fn)

    op.__name__ = name
    return op


def erf(x: Tensor) -> Tensor:
    return _op(ERF, erf_np, "erf", x)


erf_ = _inplace_op(ERF, erf_np, "erf_")

# ------------------------------------------------------------------------------ erfc


_erfc_py = np.frompyfunc(math.erfc, 1, 1)
erfc_np = _float64(lambda a: np.asarray(_erfc_py(a), dtype=_F64))

ERFC = node_class(
    "ErfcBackward0",
    (lambda k, g, s, a: k.mul_scalar(k.exp(-k.square(s[0])), -_TWO_OVER_SQRT_PI) * g,),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: t * -_TWO_OVER_SQRT_PI * np.exp(-(p[0] * p[0])),),
)


def erfc(x: Tensor) -> Tensor:
    return _op(ERFC, erfc_np, "erfc", x)


erfc_ = _inplace_op(ERFC, erfc_np, "erfc_")

# ---------------------------------------------------------------------------- erfinv


def _erfinv64(y: np.ndarray) -> np.ndarray:
    """erf^-1 in float64: a rational first guess (|y| <= 0.7 and the tails), then Newton
    steps on erf(x) - y, which converge quadratically from there."""
    ay = np.abs(y)
    central = ay <= 0.7
    z = np.where(central, y * y, 0.0)
    # a standard low-order approximation, refined below
    x_c = (
        y
        * (((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899)
        / ((((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0)
    )
    w = np.sqrt(-np.log(np.where(central | (ay >= 1), 0.5, (1 - ay) / 2)))
    x_t = (
        np.sign(y)
        * (((1.641345311 * w + 3.429567803) * w - 1.624906493) * w - 1.970840454)
        / ((1.637067800 * w + 3.543889200) * w + 1.0)
    )
    x = np.where(central, x_c, x_t)
    for _ in range(3):
        err = erf_np(x) - y
        x = x - err / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
    x = np.where(ay == 1, np.sign(y) * np.inf, x)
    return np.where(ay > 1, np.nan, x)  # type: ignore[no-any-return]


erfinv_np = _float64(_erfinv64)

_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _erfinv_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    # 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
    if _is_np(k):
        return _HALF_SQRT_PI * np.exp(np.square(erfinv_np(s[0]))) * g
    return k.mul_scalar(k.exp(k.square(erfinv(s[0]))), _HALF_SQRT_PI) * g


ERFINV = node_class(
    "ErfinvBackward0",
    (_erfinv_back,),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: _HALF_SQRT_PI * np.exp(np.square(o)) * t,),
)


def erfinv(x: Tensor) -> Tensor:
    return _op(ERFINV, erfinv_np, "erfinv", x)


erfinv_ = _inplace_op(ERFINV, erfinv_np, "erfinv_")

# --------------------------------------------------------------------- the gamma family


def _lgamma_py(v: float) -> float:
    if math.isnan(v):
        return v
    try:
        return math.lgamma(v)
    except ValueError:  # a pole (0, -1, -2, ...): torch gives inf
        return math.inf


_lgamma_vec = np.frompyfunc(_lgamma_py, 1, 1)
lgamma_np = _float64(lambda a: np.asarray(_lgamma_vec(a), dtype=_F64))

# the Bernoulli numbers B_2k, for the asymptotic series of digamma and the zeta tail
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _digamma64(x: np.ndarray) -> np.ndarray:
    """psi(x): the reflection psi(1 - x) - pi / tan(pi x) below 0, the recurrence
    psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series; -inf at 0 (the
    sign of torch's), nan at the negative integers."""
    x = np.asarray(x, dtype=_F64)
    neg = x < 0
    v = np.where(neg, 1 - x, x)
    acc = np.zeros_like(v)
    for _ in range(10):
        small = v < 10
        acc = acc - np.where(small, 1 / np.where(small, v, 1), 0)
        v = np.where(small, v + 1, v)
    inv2 = 1 / (v * v)
    series = np.zeros_like(v)
    p = np.ones_like(v)
    for k, b in enumerate(_B2K, start=1):
        p = p * inv2
        series = series + b / (2 * k) * p
    out = np.log(v) - 0.5 / v - series + acc
    refl = out - np.pi / np.tan(np.pi * x)
    out = np.where(neg, refl, out)
    out = np.where(x == 0, np.copysign(np.inf, -x), out)  # -inf at +0, inf at -0
    return np.where(neg & (x == np.floor(x)), np.nan, out)  # type: ignore[no-any-return]


def _zeta64(s: float, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function zeta(s, q) for s > 1 (Euler-Maclaurin: a direct sum of N
    terms, the integral of the tail and its Bernoulli corrections)."""
    q = np.asarray(q, dtype=_F64)
    n = 12 + int(max(0.0, -float(np.nanmin(q, initial=0.0))))
    total = np.zeros_like(q)
    for k in range(n):
        total = total + (q + k) ** -s
    a = q + n
    total = total + a ** (1 - s) / (s - 1) + 0.5 * a**-s
    fact = 1.0
    rising = s
    term_pow = a ** (-s - 1)
    for j, b in enumerate(_B2K, start=1):
        fact *= (2 * j - 1) * (2 * j) if j > 1 else 2
        total = total + b / fact * rising * term_pow
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        term_pow = term_pow / (a * a)
    return total  # type: ignore[no-any-return]


def _trigamma(a: np.ndarray) -> np.ndarray:
    """psi'(x) by torch's method, in the input's precision (float32 arithmetic for float32,
    as torch's kernel; so its digits, not the zeta series' exact value): the reflection
    -pi^2 / sin^2(pi x) below 1/2, six steps of the recurrence, then a short asymptotic
    series."""
    f: Any = np.float32 if a.dtype == np.float32 else np.float64
    with np.errstate(all="ignore"):
        x = np.asarray(a, dtype=f)
        low = x < f(0.5)
        pi = f(math.pi)
        s = np.sin((pi * x).astype(np.float64)).astype(f)  # sin as glibc's sinf for float32
        result = np.where(low, -(pi * pi) / (s * s), f(0))
        v = np.where(low, f(1) - x, x)
        for _ in range(6):
            result = result + f(1) / (v * v)
            v = v + f(1)
        ixx = f(1) / (v * v)
        tail = ixx * (f(1) / f(6) - ixx * (f(1) / f(30) - ixx * (f(1) / f(42))))
        result = result + (f(1) + f(1) / (f(2) * v) + tail) / v
        return np.where(low, -result, result).astype(a.dtype)  # type: ignore[no-any-return]


def polygamma_np(n: int, a: Any) -> Any:
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2; psi for n = 0, psi' for 1."""
    if n == 0:
        return _float64(_digamma64)(a)
    if n == 1:
        return _trigamma(np.asarray(a))

    def fn(x: np.ndarray) -> np.ndarray:
        out = (-1) ** (n + 1) * math.factorial(n) * _zeta64(n + 1, x)
        pole = (x <= 0) & (x == np.floor(x))
        # NOTE: torch gives inf (odd n) / -inf (even n) at 0, and rounding noise at the
        # negative integers; detachviz gives the infinity at every pole
        return np.where(pole, np.inf if n % 2 else -np.inf, out)  # type: ignore[no-any-return]

    return _float64(fn)(a)


def digamma_np(a: Any) -> Any:
    return polygamma_np(0, a)


def _polygamma_k(k: Any, n: int, x: Any) -> Any:
    return polygamma_np(n, x) if _is_np(k) else polygamma(n, x)


LGAMMA = node_class(
    "LgammaBackward0",
    (lambda k, g, s, a: g * (digamma_np(s[0]) if _is_np(k) else digamma(s[0])),),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: t * digamma_np(p[0]),),
)
DIGAMMA = node_class(
    "DigammaBackward0",
    (lambda k, g, s, a: g * _polygamma_k(k, 1, s[0]),),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: t * polygamma_np(1, p[0]),),
)
POLYGAMMA = node_class(
    "PolygammaBackward0",
    (lambda k, g, s, a: g * _polygamma_k(k, a.n + 1, s[0]),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("n",),
    jvp=(lambda t, p, o, a: t * polygamma_np(a.n + 1, p[0]),),
)


def lgamma(x: Tensor) -> Tensor:
    return _op(LGAMMA, lgamma_np, "lgamma", x)


def digamma(x: Tensor) -> Tensor:
    return _op(DIGAMMA, digamma_np, "digamma", x)


def polygamma(n: int, x: Tensor) -> Tensor:
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if not isinstance(x, Tensor):
        raise TypeError(
            f"polygamma(): argument 'input' (position 2) must be Tensor, not {type(x).__name__}"
        )
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(x)
    return _op(POLYGAMMA, lambda a: polygamma_np(n, a), "polygamma", x, (n,))


lgamma_ = _inplace_op(LGAMMA, lgamma_np, "lgamma_")
digamma_ = _inplace_op(DIGAMMA, digamma_np, "digamma_")


# NOTE: in place, torch's node is PolygammaBackward1 (for every n, 0 included)
POLYGAMMA_ = node_class(
    "PolygammaBackward1",
    POLYGAMMA._vjps,
    saved=(Saved("self", 0, (0,)),),
    attrs=("n",),
    jvp=POLYGAMMA._jvp,
)


def polygamma_(x: Tensor, n: int) -> Tensor:
    return inplace(x, "polygamma_", POLYGAMMA_, lambda a: polygamma_np(n, a), (), (n,))


def _polygamma_method(x: Tensor, n: int) -> Tensor:
    """Tensor.polygamma(n): the tensor first, as torch's method takes it."""
    return polygamma(n, x)


_LOG_PI = math.log(math.pi)


def _mvlgamma_np(p: int) -> Any:
    def fn(a: np.ndarray) -> np.ndarray:
        total = np.full(a.shape, p * (p - 1) / 4 * _LOG_PI)
        for i in range(p):
            total = total + lgamma_np(a.astype(_F64) - i / 2)
        return total.astype(a.dtype)

    return fn


def _mvlgamma_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    # mvlgamma_backward: grad * digamma(arange(-p/2 + 1/2, 1/2, 1/2) + self.unsqueeze(-1))
    # summed over the new last dim
    x = s[0]
    offsets = np.arange(-a.p * 0.5 + 0.5, 0.5, 0.5)
    if _is_np(k):
        args = offsets.astype(x.dtype) + x[..., None]
        return g * digamma_np(args).sum(-1)
    args = x.new_tensor(offsets) + x.unsqueeze(-1)
    return g * digamma(args).sum(-1)


MVLGAMMA = node_class(
    "MvlgammaBackward0",
    (_mvlgamma_back,),
    saved=(Saved("self", 0, (0,)),),
    attrs=("p",),
    jvp=(lambda t, p, o, a: _mvlgamma_back(NP, t, p, a),),
)


def _mvlgamma_check(p: int) -> None:
    # NOTE: torch 2.13 checks only p; an element at or below (p - 1) / 2 gives inf or nan
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def mvlgamma(x: Tensor, p: int) -> Tensor:
    _mvlgamma_check(p)
    return _op(MVLGAMMA, _mvlgamma_np(p), "mvlgamma", x, (p,))


def mvlgamma_(x: Tensor, p: int) -> Tensor:
    _mvlgamma_check(p)
    return inplace(x, "mvlgamma_", MVLGAMMA, _mvlgamma_np(p), (), (p,))


# ------------------------------------------------------------------------- i0 and i1


def _i1_64(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function I1 by its power series (all terms of one sign, so no
    cancellation; enough terms for the largest |x| finite in float64)."""
    x = np.asarray(x, dtype=_F64)
    half = x / 2
    q = half * half
    term = half.copy()
    total = term.copy()
    top = float(np.nanmax(np.abs(x), initial=0.0))
    for k in range(1, 40 + int(min(top, 800.0))):
        term = term * q / (k * (k + 1))
        total = total + term
    return np.where(np.isinf(x), x, total)  # type: ignore[no-any-return]


i0_np = _float64(np.i0)
i1_np = _float64(_i1_64)

I0 = node_class(
    "I0Backward0",
    (lambda k, g, s, a: g * (i1_np(s[0]) if _is_np(k) else special_i1(s[0])),),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: t * i1_np(p[0]),),
)


def i0(x: Tensor) -> Tensor:
    return _op(I0, i0_np, "i0", x)


i0_ = _inplace_op(I0, i0_np, "i0_")


def _i1_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    # i1'(x) = i0(x) - i1(x) / x, and 1/2 at 0 (derivatives.yaml's special_i1 formula)
    x, y = s[0], s[1]
    if _is_np(k):
        with np.errstate(all="ignore"):
            d = np.where(x == 0, np.asarray(0.5, x.dtype), i0_np(x) - y / x)
        return g * d
    xd = k.data(x)
    safe = k.const(np.where(xd == 0, np.ones((), xd.dtype), xd))
    d = i0(x) - y / safe
    return g * k.where0(xd != 0, d) + k.where0(xd == 0, k.mul_scalar(g, 0.5))


I1 = node_class(
    "SpecialI1Backward0",
    (_i1_back,),
    saved=(Saved("self", 0, (0,)), Saved("result", -1, (0,))),
    jvp=(lambda t, p, o, a: _i1_back(NP, t, (p[0], o), a),),
)


def special_i1(x: Tensor) -> Tensor:
    return _op(I1, i1_np, "special_i1", x)


# ------------------------------------------------------------------------------ sinc


def _sinc_fn(a: np.ndarray) -> np.ndarray:
    # torch's kernel: 1 at 0, else sin(pi x) / (pi x), in the input's precision
    with np.errstate(all="ignore"):
        prod = a * np.asarray(math.pi, a.dtype)
        # sin as glibc's (torch's scalar kernel): float32 evaluated in float64, rounded once
        sin = (
            np.sin(prod.astype(np.float64)).astype(a.dtype)
            if a.dtype == np.float32
            else np.sin(prod)
        )
        return np.where(a == 0, np.ones((), a.dtype), sin / prod)  # type: ignore[no-any-return]


def sinc_np(a: Any) -> Any:
    return _sinc_fn(np.asarray(a))


def _sinc_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    # sinc_backward: grad * (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 == 0
    x = s[0]
    if _is_np(k):
        with np.errstate(all="ignore"):
            xpi = x * np.asarray(math.pi, x.dtype)
            sq = x * x * np.asarray(math.pi, x.dtype)
            out = g * (((xpi * np.cos(xpi)) - np.sin(xpi)) / sq)
            return np.where(sq == 0, np.zeros((), out.dtype), out)
    xpi = k.mul_scalar(x, math.pi)
    sq = k.mul_scalar(x * x, math.pi)
    out = g * (((xpi * xpi.cos()) - xpi.sin()) / sq)
    return k.zero_where(k.data(sq) == 0, out)


SINC = node_class(
    "SincBackward0",
    (_sinc_back,),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, o, a: _sinc_back(NP, t, p, a),),
)


def sinc(x: Tensor) -> Tensor:
    return _op(SINC, sinc_np, "sinc", x)


sinc_ = _inplace_op(SINC, sinc_np, "sinc_")

# ----------------------------------------------------------------------------- logit


def _logit_np(eps: Any) -> Any:
    def fn(a: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            x = a if eps is None else np.clip(a, eps, 1 - eps).astype(a.dtype, copy=False)
            # torch's log kernel (engine/transcendental): the same bits as torch's logit
            return transcendental.log(x / (np.ones((), a.dtype) - x))  # type: ignore[no-any-return]

    return fn


def _logit_back(k: Any, g: Any, x: Any, a: Any) -> Any:
    """torch's logit_backward: grad / (x (1 - x)); outside [0, 1] nan (no eps) or, with eps,
    0 outside [eps, 1 - eps] (at::where: its ops are the create_graph graph)."""
    xd = k.data(x)
    if _is_np(k):
        with np.errstate(all="ignore"):
            d = g / (x * (np.ones((), x.dtype) - x))
    else:
        d = g / (x * k.rsub_scalar(1, x))
    if a.eps is None:
        out_of_range = (xd < 0) | (xd > 1)
        if _is_np(k):
            return np.where(out_of_range, np.asarray(np.nan, d.dtype), d)
        return k.where(k.const(~out_of_range), d, float("nan"))
    return k.zero_where((xd < a.eps) | (xd > 1 - a.eps), d)


LOGIT = node_class(
    "LogitBackward0",
    (lambda k, g, s, a: _logit_back(k, g, s[0], a),),
    saved=(Saved("self", 0, (0,)),),
    attrs=("eps",),
    jvp=(lambda t, p, o, a: _logit_back(NP, t, p[0], a),),
)


def logit(x: Tensor, eps: Any = None) -> Tensor:
    eps = None if eps is None or eps < 0 else float(eps)
    return _op(LOGIT, _logit_np(eps), "logit", x, (eps,))


def logit_(x: Tensor, eps: Any = None) -> Tensor:
    eps = None if eps is None or eps < 0 else float(eps)
    return inplace(x, "logit_", LOGIT, _logit_np(eps), (), (eps,))


# ----------------------------------------------------------------- torch.special extras


def expit(x: Tensor) -> Tensor:
    return x.sigmoid()  # type: ignore[no-any-return]


def multigammaln(x: Tensor, p: int) -> Tensor:
    return mvlgamma(x, p)
