"""The compiled float32 kernels (engine/_kernels.c, built by `pip install` where a C compiler is
found): Sleef's expf and logf as torch's AVX2 build runs them, glibc's expf, torch's sigmoid
and an elementwise fused multiply-add. They compute the same bits as the numpy emulations in
transcendental.py, libm.py and fma.py, which stay the fallback; a small call costs one C
call instead of the emulation's 25-45 numpy calls. The same module makes engine/blas.py's
MKL calls (float32 or float64, into an output the caller made), and `compiled` loads it and
the recorder's compiled module (engine/trace.py).

`DETACHVIZ_NO_KERNELS=1` turns both off (the Python forms are tested that way). Every
kernel function here takes float32 arrays and returns a new C-contiguous float32 array; the
binary ones take what `dense_f32` accepts."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

OFF_ENV = "DETACHVIZ_NO_KERNELS"
_F32 = np.dtype(np.float32)


def compiled(name: str) -> Any:
    """The engine's compiled module `name` (these kernels, `_kernels`, or the recorder's
    `_record`), or None: installed without a C compiler, or $DETACHVIZ_NO_KERNELS set."""
    if os.environ.get(OFF_ENV):
        return None
    import importlib

    try:  # by name: a compiled module, not a source file of the package's import graph
        return importlib.import_module(f"detachviz.engine.{name}")
    except ImportError:  # installed without a C compiler: the Python forms run
        return None


_C = compiled("_kernels")
available = _C is not None


def _unary(name: str) -> Any:
    fn: Any = getattr(_C, name, None)
    ascontiguous = np.ascontiguousarray
    empty = np.empty

    def run(a: np.ndarray) -> np.ndarray:
        src = ascontiguous(a)
        out = empty(src.shape, np.float32)
        fn(src, out)
        return out

    run.__name__ = name
    return run


sleef_expf = _unary("sleef_expf")  # Sleef_expf8_u10
sleef_logf = _unary("sleef_logf")  # Sleef_logf8_u10
expf = _unary("expf")  # the C library's expf


# call_vml(address, src, dst, mode): a VML function by address (engine/mkl.py), or None
call_vml: Any = getattr(_C, "call_vml", None)
# address(a): the address of a buffer's first element (engine/mkl.py's `address`), or None
address: Any = getattr(_C, "address", None)
# call_gemm(address, transa, transb, m, n, k, alpha, (a, lda), (b, ldb), beta, (c, ldc)) and
# call_gemv(address, trans, m, n, (a, lda), (x, incx), y): column-major cblas ?gemm / ?gemv
# (alpha 1, beta 0) at an address (engine/blas.py's calls), or None
call_gemm: Any = getattr(_C, "call_gemm", None)
call_gemv: Any = getattr(_C, "call_gemv", None)
# mv(address, a, x, y) and gemm_into(address, out, a, b, alpha, beta): engine/blas.py's `mv`
# and `_gemm_into` for the operands MKL takes as they are (False for the others), or None
mv: Any = getattr(_C, "mv", None)
gemm_into: Any = getattr(_C, "gemm_into", None)


def dense_f32(a: Any, b: Any) -> bool:
    """Whether the binary kernels take a and b as they are: float32 ndarrays of one shape,
    C-contiguous (callers keep their numpy formula for anything else). Written out: it runs
    before every backward kernel call."""
    return (
        available
        and type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.dtype == _F32
        and b.dtype == _F32
        and a.shape == b.shape
        and a.flags.c_contiguous
        and b.flags.c_contiguous
    )


def _binary(name: str) -> Any:
    fn: Any = getattr(_C, name, None)
    empty = np.empty

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = empty(a.shape, np.float32)
        fn(a, b, out)
        return out

    run.__name__ = name
    return run


tanh_back = _binary("tanh_back")  # torch's tanh_backward: g * fma(-y, y, 1)
sigmoid_back = _binary("sigmoid_back")  # torch's sigmoid_backward: g * (1 - y) * y
relu_back = _binary("relu_back")  # torch's threshold_backward at 0: y <= 0 ? 0 : g


# total(x): torch's whole-tensor sum of a C-contiguous float32/float64 array, as a Python float
total: Any = getattr(_C, "total", None)


# rows(x, dst): `total` of each row of a C-contiguous float32/float64 matrix, into dst
rows: Any = getattr(_C, "rows", None)


# columns(x, out): the sums down axis 0 of a 3-D float32/float64 x (unit column stride)
columns: Any = getattr(_C, "columns", None)


def softmax_rows(x: np.ndarray, log: bool) -> np.ndarray:
    """engine/softmax.py's float32 softmax (or log_softmax) over the last dim of x, one call."""
    src = np.ascontiguousarray(x)
    out = np.empty(src.shape, np.float32)
    _C.softmax_rows(src, out, src.shape[-1], log)
    return out


def softmax_back_rows(g: np.ndarray, y: np.ndarray, log: bool) -> np.ndarray:
    """Its backward for grad g and output y (one shape, float32), one call."""
    gc, yc = np.ascontiguousarray(g), np.ascontiguousarray(y)
    out = np.empty(yc.shape, np.float32)
    _C.softmax_back_rows(gc, yc, out, yc.shape[-1], log)
    return out


# add_rows(out, index, rows): out[index[i]] += rows[i] in order (np.add.at's additions)
add_rows: Any = getattr(_C, "add_rows", None)


def lane_sum(rows: np.ndarray) -> np.ndarray:
    """Each row of a 2-D float32 array (at least one column) summed as torch's AVX2
    `vec::reduce_all` adds it (engine/softmax.py's lane_sum)."""
    out = np.empty(rows.shape[0], np.float32)
    _C.lane_sum(np.ascontiguousarray(rows), out)
    return out


def nll_cascade(terms: np.ndarray, positions: np.ndarray, power: int) -> float:
    """nll_loss's cascade sum of float32 or float64 `terms` at int64 sample `positions`
    (engine/summation.py's nll_cascade), in the terms' dtype, returned as a Python float."""
    return _C.nll_cascade(np.ascontiguousarray(terms), np.ascontiguousarray(positions), power)


def sigmoid(rows: np.ndarray, run: int) -> np.ndarray:
    """torch's float32 sigmoid of a C-contiguous array read as rows of `run` elements (each
    row's first run - run % 16 by its vector loop, the rest by its scalar loop)."""
    out = np.empty(rows.shape, np.float32)
    _C.sigmoid(rows, out, run)
    return out


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c rounded once, broadcast as numpy broadcasts (a, b, c float32)."""
    arrays = [np.asarray(x, np.float32) for x in (a, b, c)]
    shape = np.broadcast_shapes(*(x.shape for x in arrays))
    arrays = [
        x
        if x.shape == shape and x.flags.c_contiguous
        else np.ascontiguousarray(np.broadcast_to(x, shape))
        for x in arrays
    ]
    out = np.empty(shape, np.float32)
    _C.fma(arrays[0], arrays[1], arrays[2], out)
    return out
