"""float32 sin, cos, exp, log, tanh, sqrt and sigmoid as torch's CPU kernels compute them.

With the `exact` extra (engine/mkl.py) sin/cos/exp/log/tanh/sqrt of float32 and float64 call
torch's own kernel, MKL's VML, and are bit-identical; each op picks that backend or the numpy
fallback below once, on its first call. Without it:

What torch 2.13 (the pip CPU build, MKL linked, AVX2 capability) runs for float32:

- sin, cos, exp, log, tanh (and sqrt): `at::vml::v<op>`, which with MKL is Intel's VML
  (`vmsSin`, ..., mode VML_HA) for every size and layout (strided inputs are buffered).
  Without MKL no numpy code is bit-identical: VML's results are within 1 ulp and agree with
  the correctly rounded value in 93-99.9% of elements, numpy's float32 kernels in only
  60-90%, so these are evaluated in float64 and rounded once (correctly rounded but for rare
  double roundings): the closest reproducible stand-in.
- sigmoid: its own kernel (UnaryOpsKernel.cpp): contiguous runs are computed 16 at a time as
  `1 / (1 + exp(0 - x))` with Sleef's `expf8_u10` (reproduced below, its fused multiply-adds
  included), and the last `n % 16` elements (all of them when the input is strided) by the
  scalar `1 / (1 + std::exp(-x))`, glibc's expf (correctly rounded but for about 1 in 3,000
  values: its error bound is 0.502 ulp; float64 exp rounded once stands in for it). The Sleef
  part has a fast path (_sleef_expf_fast, |x| <= 87: float64 where exact by proof, ~45 numpy
  calls for a small sigmoid) and the step-by-step reference (_sleef_expf) for the rest.

Above EXACT_MAX elements the float64 evaluation would cost 2-10x numpy's float32 kernels, so
large tensors keep numpy's float32 kernels (the large-tensor speed stays what it was).
sqrt falls back to numpy (correctly rounded; VML HA's float32 sqrt is not, 82% agree). Float64
and other dtypes use numpy directly."""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import kernels
from detachviz.engine.fma import Fused, fma32, two_sum_err

EXACT_MAX = 1 << 16  # elements; larger float32 inputs take numpy's float32 kernels

_F32 = np.dtype(np.float32)
_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)


def _rounded(f64: Any, f32: Any) -> Any:
    def op(a: Any) -> Any:
        a = np.asarray(a)
        if a.dtype != _F32 or a.size > EXACT_MAX:
            return f32(a)
        return f64(a.astype(np.float64)).astype(np.float32)

    op.__name__ = f32.__name__
    return op


def _backed(vml_name: str, fallback: Any) -> Any:
    """The op: MKL's VML `vml_name` for float32/float64 when engine.mkl loads (torch's own
    kernel, so torch's bits), else `fallback`; chosen once, on the first call."""
    chosen: list[Any] = []

    def op(a: Any) -> Any:
        if chosen:
            return chosen[0](a)
        chosen.append(_pick(vml_name, fallback))
        return chosen[0](a)

    op.__name__ = fallback.__name__
    op.fallback = fallback  # type: ignore[attr-defined]
    return op


def _pick(vml_name: str, fallback: Any) -> Any:
    from detachviz.engine import mkl

    vml = mkl.vml(vml_name, fallback)
    return fallback if vml is None else vml


sin = _backed("Sin", _rounded(np.sin, np.sin))
cos = _backed("Cos", _rounded(np.cos, np.cos))
exp = _backed("Exp", _rounded(np.exp, np.exp))
log = _backed("Ln", _rounded(np.log, np.log))
tanh = _backed("Tanh", _rounded(np.tanh, np.tanh))
sqrt = _backed("Sqrt", np.sqrt)  # numpy's is correctly rounded; VML HA's float32 is not always


# Sleef's expf (sleefsimdsp.c, xexpf): q = rint(x / ln2), a two-part Cody-Waite reduction, a
# degree-6 polynomial, scaling by 2**q in two halves; below -104 it is 0, above 100 inf.
_R_LN2 = np.float32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = np.float32(0.693145751953125)
_L2L = np.float32(1.428606765330187045e-06)
_EXP_P = tuple(
    np.float32(c)
    for c in (
        0.000198527617612853646278381,
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
)


def _pow2i(q: np.ndarray) -> np.ndarray:
    return ((q + 0x7F) << 23).astype(np.int32).view(np.float32)


def sleef_expf(d: np.ndarray) -> np.ndarray:
    """Sleef_expf8_u10 (AVX2 build: every vmla a fused multiply-add) on a float32 array."""
    if kernels.available:
        return kernels.sleef_expf(d)
    if d.size and _in_fast_range(d):
        flat = d.reshape(-1)  # elementwise: any layout gives the same values
        fast = _sleef_expf_fast(flat, flat.astype(np.float64), np.empty_like(flat))
        if fast is not None:
            return fast.reshape(d.shape)
    fused = Fused()
    out = _sleef_expf(d, fused)
    return out if fused.exact() else _sleef_expf(d, fma32)


def _sleef_expf(d: np.ndarray, fma: Any) -> np.ndarray:
    """The reference emulation, step by step as Sleef's source (every input, every size)."""
    with np.errstate(over="ignore", invalid="ignore"):
        q = np.rint(d * _R_LN2)
        q = np.where(np.isfinite(q), q, 0).astype(np.int32)  # nan/inf lanes are replaced below
        qf = q.astype(np.float32)
        s = fma(qf, -_L2U, d)
        s = fma(qf, -_L2L, s)
        u: Any = _EXP_P[0]  # the first step's product broadcasts (same values)
        for c in _EXP_P[1:]:
            u = fma(u, s, c)
        u = _ONE + fma(s * s, u, s)
        half = q >> 1
        u = u * _pow2i(half) * _pow2i(q - half)
        u = np.where(d < np.float32(-104), np.float32(0.0), u)
        u = np.where(d > np.float32(100), np.float32(np.inf), u)
        return np.where(np.isnan(d), d, u).astype(np.float32)


# Sleef's logf (sleefsimdsp.c, xlogf_u1, the AVX2 build: ENABLE_FMA_SP): d = m * 2**e with m in
# [0.75, 1.5), x = (m - 1) / (m + 1) as a double-float, log = e*ln2 + 2x + x**3 * t(x**2) summed
# as double-floats (df.h's dfmul/dfdiv/dfadd: every vfma/vfmapn/vfmanp one fused step).
_LN2_HI = np.float32(0.69314718246459960938)
_LN2_LO = np.float32(-1.904654323148236017e-09)
_LOG_P = (np.float32(0.3027294874), np.float32(0.3996108174), np.float32(0.6666694880))
_TINY = np.float32(np.finfo(np.float32).tiny)
_BIG = np.float32(np.finfo(np.float32).max)


def sleef_logf(d: np.ndarray) -> np.ndarray:
    """Sleef_logf8_u10 (torch's `Vectorized<float>::log`) on a float32 array."""
    d = np.asarray(d, dtype=_F32)
    if kernels.available:
        return kernels.sleef_logf(d)
    if d.size and np.count_nonzero((d >= _TINY) & (d <= _BIG)) == d.size:
        fast = _sleef_logf_fast(d.reshape(-1))
        if fast is not None:
            return fast.reshape(d.shape)
    fused = Fused()
    out = _sleef_logf(d, fused)
    return out if fused.exact() else _sleef_logf(d, fma32)


def _sleef_logf_fast(d: np.ndarray) -> np.ndarray | None:
    """logf_pair's steps for normal finite d > 0 in about 45 numpy calls instead of ~100: every
    fused step is one float64 expression rounded to float32. Exact in float64 (m in
    [0.75, 1.5), so x = (m - 1)/(m + 1) < 0.2): the products' rounding errors (fma(LN2_HI, e,
    -sx), u = fma(t, nx, -qx)), dfadd2(-1, m) (Sterbenz: its low part is 0), dfadd2(1, m)'s low
    part (1 + m) - dx, fma(-dx, t, 1) = 1 - dx*t (dx*t within 2**-23 of 1: a multiple of
    2**-49 below 2**-23), sy = LN2_LO*e + that first error (multiples of 2**-52 below 2**-16)
    and v = fma(-dy, t, ...) (multiples of 2**-50 below 2**-22): rounding those once is the
    fused result, halfway points included. The three other sums (qy and the polynomial's two)
    are kept and checked at once: a float64 sum rounded onto a float32 halfway point is the
    one place rounding twice can differ from the fused step's once (a halfway sum that is
    exact rounds to even as the fused step does); then None, and the reference decides."""
    f64 = np.float64
    e = (((d * np.float32(1 / 0.75)).view(np.int32) >> 23) & 0xFF) - 0x7F
    m = (d.view(np.int32) - (e << 23)).view(_F32)
    ef = e.astype(f64)
    sx = (ef * float(_LN2_HI)).astype(_F32)
    sy = (ef * float(_LN2_LO) + (ef * float(_LN2_HI) - sx)).astype(_F32)
    nx = m - _ONE
    dx = m + _ONE
    dx64 = dx.astype(f64)
    dy = ((m.astype(f64) + 1.0) - dx64).astype(_F32)
    t = _ONE / dx
    qx = nx * t
    t64 = t.astype(f64)
    qx64 = qx.astype(f64)
    vi = (1.0 - dx64 * t64).astype(_F32)
    v = (vi - dy * t64).astype(_F32)
    prods = np.empty((3, d.size))
    sums = np.empty((3, d.size))
    u = nx.astype(f64) * t64 - qx64
    np.add(np.multiply(qx64, v, prods[0]), u, sums[0])
    x2 = qx * qx
    x2_64 = x2.astype(f64)
    np.add(np.multiply(x2_64, float(_LOG_P[0]), prods[1]), float(_LOG_P[1]), sums[1])
    np.add(np.multiply(x2_64, sums[1].astype(_F32), prods[2]), float(_LOG_P[2]), sums[2])
    tied = (sums.view(np.int64) & _LOW_BITS) == _HALFWAY
    if np.count_nonzero(tied):
        step, col = np.nonzero(tied)
        addend = np.where(step == 0, u[col], np.where(step == 1, _LOG_P[1], _LOG_P[2]))
        if np.count_nonzero(two_sum_err(prods[step, col], addend.astype(f64), sums[step, col])):
            return None  # a sum float64 rounded onto a halfway point: the reference decides
    qy, p = sums[0].astype(_F32), sums[2].astype(_F32)
    ax = qx * np.float32(2.0)
    s = sx + ax
    sy = (((sx - s) + ax) + sy) + qy * np.float32(2.0)
    w = (x2 * qx) * p
    hi = s + w
    return hi + (((s - hi) + w) + sy)


def _dfadd2(x: Any, y: Any) -> tuple[Any, Any]:
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _sleef_logf(d: np.ndarray, fma: Any) -> np.ndarray:
    d = np.asarray(d, dtype=_F32)
    with np.errstate(all="ignore"):
        hi, lo = logf_pair(d, fma)
        r = hi + lo
        r = np.where(np.isposinf(d), np.float32(np.inf), r)
        r = np.where((d < 0) | np.isnan(d), np.float32(np.nan), r)
        return np.where(d == 0, np.float32(-np.inf), r).astype(_F32)


def logf_pair(d: np.ndarray, fma: Any) -> tuple[np.ndarray, np.ndarray]:
    """xlogf_u1's double-float result (hi, lo) before its last add, for finite d > 0."""
    tiny = d < _TINY
    dn = np.where(tiny, d * np.float32(2.0**64), d)
    e = (((dn * np.float32(1 / 0.75)).view(np.int32) >> 23) & 0xFF) - 0x7F
    m = (dn.view(np.int32) - (e << 23)).view(_F32)  # vldexp3: d * 2**-e through the bits
    ef = np.where(tiny, e - 64, e).astype(_F32)
    sx = _LN2_HI * ef  # s = dfmul((ln2 hi, lo), e)
    sy = fma(_LN2_LO, ef, fma(_LN2_HI, ef, -sx))
    nx, ny = _dfadd2(np.float32(-1.0), m)  # x = dfdiv(dfadd2(-1, m), dfadd2(1, m))
    dx, dy = _dfadd2(_ONE, m)
    t = _ONE / dx
    qx = nx * t
    u = fma(t, nx, -qx)
    v = fma(-dy, t, fma(-dx, t, _ONE))
    qy = fma(qx, v, fma(ny, t, u))
    x2 = qx * qx
    p = fma(fma(_LOG_P[0], x2, _LOG_P[1]), x2, _LOG_P[2])
    ax, ay = qx * np.float32(2.0), qy * np.float32(2.0)  # s = dfadd(s, dfscale(x, 2))
    s = sx + ax
    sy = (((sx - s) + ax) + sy) + ay
    w = (x2 * qx) * p  # s = dfadd(s, x**3 * t)
    hi = s + w
    return hi, ((s - hi) + w) + sy


_FAST_MAX = np.float32(87.0)  # |d| up to this: every result and intermediate is a normal float32
# L2U + L2L (exact: 43 significant bits) as a float64 array of one element, so that q (float32)
# widens to float64 under numpy 1.x's value-based casting as under 2.x's rules; the polynomial's
# constants only meet float64 arrays, so plain float64 scalars (a third cheaper per call)
_L2_64 = np.array([float(_L2U) + float(_L2L)])
_EXP_P64 = tuple(np.float64(c) for c in _EXP_P)
_LOW_BITS = np.int64(0x1FFFFFFF)  # a float64's bits below float32 precision
_HALFWAY = np.int64(0x10000000)  # those bits of a float32 halfway point


def _in_fast_range(d: np.ndarray) -> bool:
    """|d| <= 87 everywhere (no nan): _sleef_expf_fast's domain."""
    return np.count_nonzero(np.abs(d) <= _FAST_MAX) == d.size


def _sleef_expf_fast(d: np.ndarray, d64: np.ndarray, out: np.ndarray) -> np.ndarray | None:
    """Sleef's expf on a 1-D float32 array d (d64: d as float64) with |d| <= 87 (no nan:
    _in_fast_range), into `out`, in about 25 numpy calls instead of the reference's ~60; None
    when some fused step's float64 sum was rounded onto a float32 halfway point (then the
    reference decides).

    Why each step gives Sleef's bits (q = rint(d * R_LN2) as Sleef, |q| <= 126):
    - s = fma(q, -L2U, d), then fma(q, -L2L, s). L2U is a multiple of 2**-18; for q != 0,
      |d| >= 0.34 is a multiple of 2**-25 and |d - q*L2U| < 0.5, so the first step is exact in
      float32 and s is `d - q*(L2U + L2L)` rounded once. L2U + L2L is exact in float64 (a
      multiple of 2**-43 below 1), so are its product with q (50 bits) and d minus that (a
      multiple of 2**-43 below 0.5): one float64 expression, one rounding.
    - each polynomial step fma(u, s, c) and the last fma(s*s, u, s): the product of two
      float32 is exact in float64, the sum is rounded to float64 and then to float32, which is
      the one rounding of the exact value unless the float64 sum is exactly halfway between
      two float32 (the only place a double rounding can differ): all six sums are kept in one
      buffer and checked at once; a halfway sum that is exact (its error term 0) rounds to
      even as the fused step does.
    - 1 + w is a float32 add; scaling by 2**q in two halves is exact for normal results, as
      is ldexp (e**-87 and e**87 are normal float32)."""
    n = d.size
    q = np.rint(d * _R_LN2)
    s64 = np.subtract(d64, q * _L2_64, d64)  # the exact value (d64 is the caller's scratch)
    s = s64.astype(np.float32)
    s64[...] = s  # (a float32 times a float32 would multiply in float32: widen s once)
    prods = np.empty((6, n))
    sums = np.empty((6, n))
    p, r = prods[0], sums[0]
    np.multiply(s64, _EXP_P64[0], p)
    u = np.add(p, _EXP_P64[1], r).astype(np.float32)
    for k in range(1, 5):
        p, r = prods[k], sums[k]
        np.multiply(u, s64, p)
        u = np.add(p, _EXP_P64[k + 1], r).astype(np.float32)
    p, r = prods[5], sums[5]
    np.multiply(s * s, u, p, dtype=np.float64)
    w = np.add(p, s64, r).astype(np.float32)
    tied = (sums.view(np.int64) & _LOW_BITS) == _HALFWAY
    if np.count_nonzero(tied) and _rounded_twice(prods, sums, s64, tied):
        return None
    w += _ONE
    return np.ldexp(w, q.astype(np.int32), out)


_ADDENDS = np.array([float(c) for c in _EXP_P[1:]] + [0.0])  # each fused step's c (the last: s)


def _rounded_twice(prods: np.ndarray, sums: np.ndarray, s: np.ndarray, tied: np.ndarray) -> bool:
    """Whether some halfway float64 sum (`tied`) of _sleef_expf_fast's steps was itself rounded
    (a float32 halfway point that is the exact value rounds to even correctly: no fallback).
    s: Sleef's s, as float64."""
    step, col = np.nonzero(tied)
    c = np.where(step == 5, s[col], _ADDENDS[step])
    return bool(np.count_nonzero(two_sum_err(prods[step, col], c, sums[step, col])))


def sigmoid(a: Any) -> Any:
    """torch's sigmoid: float32 by its vectorised/scalar split (module docstring), the rest
    as `1 / (1 + exp(-a))` in the dtype."""
    a = np.asarray(a)
    if kernels.available and a.dtype == _F32 and 0 < a.size <= EXACT_MAX:
        flags = a.flags
        if flags.c_contiguous:
            return kernels.sigmoid(a, a.size)  # one contiguous run
        if flags.f_contiguous:
            return sigmoid(a.T).T  # torch iterates a transposed tensor in memory order
        return kernels.sigmoid(np.ascontiguousarray(a), _contiguous_run(a))
    if a.dtype == _F32 and 0 < a.size <= EXACT_MAX and a.flags.c_contiguous:
        fast = _sigmoid_fast(a.reshape(-1))  # one contiguous run, as torch's loop sees it
        if fast is not None:
            return fast.reshape(a.shape)
    with np.errstate(over="ignore"):
        if a.dtype != _F32:
            one = a.dtype.type(1) if a.dtype.kind in "fc" else 1
            return one / (one + np.exp(-a))
        if a.size > EXACT_MAX:
            return _ONE / (_ONE + np.exp(-a))
        if a.flags.f_contiguous and not a.flags.c_contiguous:
            return sigmoid(a.T).T  # torch iterates a transposed tensor in memory order
        run = _contiguous_run(a)
        rows = np.ascontiguousarray(a).reshape(-1, run)
        vec = run - run % 16
        out = np.empty_like(rows)
        if vec:
            e = sleef_expf(np.float32(0.0) - rows[:, :vec])
            out[:, :vec] = _ONE / (_ONE + e)
        if vec < run:
            t = rows[:, vec:].astype(np.float64)
            out[:, vec:] = _ONE / (_ONE + np.exp(-t).astype(np.float32))
        return out.reshape(a.shape)


def _sigmoid_fast(a: np.ndarray) -> np.ndarray | None:
    """sigmoid of a 1-D float32 array whose elements are at unit stride, |a| <= 87 (no
    overflow anywhere): Sleef's expf on the 16-element blocks, float64 exp on the tail, one
    `1 / (1 + e)` over both; None where sigmoid's general path decides."""
    n = a.size
    if (a.strides[0] != 4 and n > 1) or not _in_fast_range(a):
        return None
    d = np.subtract(_ZERO, a)
    d64 = d.astype(np.float64)
    vec = n - n % 16
    e = np.empty_like(a)
    if vec < n:
        e[vec:] = np.exp(d64[vec:])  # glibc's expf: correctly rounded but for rare cases
    if vec and _sleef_expf_fast(d[:vec], d64[:vec], e[:vec]) is None:
        return None
    e += _ONE
    return np.divide(_ONE, e, e)


_MANY_MAX = 1 << 13  # elements in all: sigmoid_many's shared evaluation up to this size


def sigmoid_many(arrays: Any) -> list[Any]:
    """`[sigmoid(a) for a in arrays]`, the same values, for several small float32 arrays at
    once: every array is split as sigmoid splits it (its contiguous runs' vectorised part and
    scalar tail), then all vectorised parts go through one Sleef expf and all tails through
    one scalar pass. NOTE: both kernels are elementwise, and per-call numpy overhead is most
    of a small sigmoid (an LSTM cell's three gates are three of them)."""
    arrays = [np.asarray(a) for a in arrays]
    if kernels.available:
        return [sigmoid(a) for a in arrays]  # a compiled call each: nothing to share
    if sum(a.size for a in arrays) > _MANY_MAX or not all(
        a.dtype == _F32 and a.size for a in arrays
    ):
        return [sigmoid(a) for a in arrays]  # larger ones: the copies would cost what it saves
    parts = []
    for a in arrays:
        flip = a.flags.f_contiguous and not a.flags.c_contiguous  # as sigmoid: memory order
        b = a.T if flip else a
        run = _contiguous_run(b)
        parts.append((np.ascontiguousarray(b).reshape(-1, run), run - run % 16, flip, b.shape))
    heads = [rows[:, :vec].reshape(-1) for rows, vec, _, _ in parts if vec]
    tails = [rows[:, vec:].reshape(-1) for rows, vec, _, _ in parts if vec < rows.shape[1]]
    with np.errstate(over="ignore"):
        if heads:
            e = sleef_expf(
                np.float32(0.0) - (np.concatenate(heads) if len(heads) > 1 else heads[0])
            )
            head = _ONE / (_ONE + e)
        if tails:
            t = (np.concatenate(tails) if len(tails) > 1 else tails[0]).astype(np.float64)
            tail = _ONE / (_ONE + np.exp(-t).astype(np.float32))
    out = []
    h = k = 0
    for rows, vec, flip, shape in parts:
        r = np.empty_like(rows)
        n, run = rows.shape
        if vec:
            r[:, :vec] = head[h : h + n * vec].reshape(n, vec)
            h += n * vec
        if vec < run:
            r[:, vec:] = tail[k : k + n * (run - vec)].reshape(n, run - vec)
            k += n * (run - vec)
        r = r.reshape(shape)
        out.append(r.T if flip else r)
    return out


def _contiguous_run(a: np.ndarray) -> int:
    """How many elements torch's inner loop sees at unit stride: the trailing dimensions that
    coalesce into one contiguous run (1 when the last dimension is itself strided)."""
    run = 1
    for size, stride in zip(reversed(a.shape), reversed(a.strides)):
        if size != 1 and stride != run * a.itemsize:
            break
        run *= size
    return max(run, 1) if a.size else 1
