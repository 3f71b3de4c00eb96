"""The C library's float64 log, log1p, exp, sin, cos, tan and pow on arrays, as torch's scalar
kernels call them (`std::log`, ...: glibc's correctly rounded or nearly so versions).

numpy computes these with libm too, except on hosts with AVX-512, where numpy dispatches its
own SIMD versions for float64 (log, exp, log1p, tan, pow, ... from Intel's SVML), which differ from
libm in the last bit on a few percent of inputs. There the functions here go element by
element through Python's `math` module (libm itself): about 0.1 µs an element, paid only by
the float64 paths that must give torch's bits (the random distributions' transforms, logspace).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import kernels

Ufunc = Callable[[Any], Any]


def _numpy_has_own_float64_simd() -> bool:
    """Whether numpy dispatches its AVX-512 float64 transcendentals on this host."""
    try:
        from numpy._core import _multiarray_umath as umath  # type: ignore[attr-defined]
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath  # type: ignore[no-redef]
    features = umath.__cpu_features__
    return bool(features.get("AVX512F")) and bool(features.get("AVX512_SKX"))


def _from_math(fn: Callable[[float], float]) -> Ufunc:
    each = np.frompyfunc(fn, 1, 1)

    def op(x: Any) -> Any:
        arr = np.asarray(x, dtype=np.float64)
        if arr.ndim == 0:
            return np.float64(fn(float(arr)))
        return np.asarray(each(arr)).astype(np.float64)

    op.__name__ = fn.__name__
    return op


_pow_each = np.frompyfunc(math.pow, 2, 1)


def _pow_from_math(base: float, x: Any) -> Any:
    return np.asarray(_pow_each(base, np.asarray(x, dtype=np.float64))).astype(np.float64)


if _numpy_has_own_float64_simd():
    log, log1p, exp = _from_math(math.log), _from_math(math.log1p), _from_math(math.exp)
    sin, cos, tan = _from_math(math.sin), _from_math(math.cos), _from_math(math.tan)
    power: Callable[[float, Any], Any] = _pow_from_math
else:
    log, log1p, exp = np.log, np.log1p, np.exp
    sin, cos, tan = np.sin, np.cos, np.tan
    power = np.power


_expf: list[Ufunc] = []


def expf(x: np.ndarray) -> np.ndarray:
    """float32 exp as glibc's `expf` computes it (torch's scalar loops call `std::exp` on a
    float: correctly rounded but for about 1 in 3,000 values, so no numpy kernel reproduces it),
    element by element through ctypes (~0.3 µs an element: for the few a vector loop leaves);
    where the C library has no expf, float64 exp rounded once stands in."""
    if not _expf:
        _expf.append(kernels.expf if kernels.available else _c_expf())
    each = _expf[0]
    x = np.asarray(x, dtype=np.float32)
    return np.asarray(each(x), dtype=np.float32) if x.size else x.copy()


def _c_expf() -> Ufunc:
    import ctypes

    try:
        fn = ctypes.CDLL("libm.so.6").expf
    except (OSError, AttributeError):
        return lambda x: np.exp(np.asarray(x, dtype=np.float64)).astype(np.float32)
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return np.frompyfunc(fn, 1, 1)
