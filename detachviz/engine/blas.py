"""Matrix products with torch's bits. With the optional MKL (`pip install detachviz[exact]`,
the library torch's CPU build links; engine/mkl.py loads it) float32 and float64 products make
the BLAS calls torch 2.13 makes: the same routine, transpose flags and operand order, so a
Linear layer's output and its gradients are torch's to the bit. Without MKL, and for other
dtypes, they are numpy's matmul (equal to rounding; summation order differs).

What torch's CPU kernels call (aten/src/ATen/native/Blas.cpp, CPUBlas.cpp, LinearAlgebra.cpp,
mkl/LinearAlgebra.cpp):
- mm / addmm (`addmm_impl_cpu_`): the result and each operand are read as a column-major
  matrix or a transposed one from their strides (an operand that is neither is copied to
  contiguous), and `?gemm` runs. A row-major result (every fresh one with more than one
  column) swaps the operands: result^T = mat2^T mat1^T. addmm's `self` is copied into the
  result first and gemm adds to it (beta), alpha is gemm's.
- mv (`addmv_impl_cpu`): `?gemv`, 'n' for a column-major matrix, 't' for a row-major one
  (others are copied to contiguous).
- dot: `?dot`.
- bmm: under 400 multiply-adds per matrix (contraction * rows * columns) a plain loop that
  adds the products in order (float accumulator for float); otherwise, when every matrix of
  both batches is row- or column-major, MKL's `cblas_?gemm_batch` in row-major layout; else a
  gemm per matrix as mm.

MKL is used only in torch's version with a threaded layer (`mkl.lapack_available`): other
versions and the sequential layer take other blocked paths. MKL runs a product on its own
thread count, one per core as torch's by default: some products' bits depend on it (7x64x16
at one thread differs from torch at two).
Cost: MKL's entry costs several µs per call, so a tiny product (20x20) takes 5-10x numpy's
~1 µs; that is the price of torch's bits, paid only with the extra."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from detachviz.engine import kernels, mkl

_ROW_MAJOR, _COL_MAJOR = 101, 102  # CblasRowMajor, CblasColMajor
_N, _T = 111, 112  # CblasNoTrans, CblasTrans
# np.dot without numpy's dispatch layer, which costs ~3x a 20x20 matrix-vector product itself
_dot = getattr(np.dot, "_implementation", np.dot)
_INT_MAX = (1 << 31) - 1  # MKL_INT is 32-bit (LP64): larger products go to numpy
_SMALL_BMM = 400  # bmm_out_or_baddbmm_: below this many multiply-adds per matrix, a loop
_I = ctypes.c_int
_P = ctypes.c_void_p
_PREFIX: dict[np.dtype, str] = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}
_SCALAR: dict[np.dtype, Any] = {
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
}

# (1, 0) as each dtype's ctypes scalar: gemv's alpha and beta, built once
_ONES = {dt: (real(1.0), real(0.0)) for dt, real in _SCALAR.items()}


class _Lib:
    checked = False
    fns: dict[tuple[str, np.dtype], Any] = {}
    addresses: dict[tuple[str, np.dtype], int] = {}  # gemm's and gemv's, for the kernels


def _fn(name: str, dt: np.dtype) -> Any:
    """MKL's cblas_<s|d><name> for dtype dt, or None without torch's MKL / for other dtypes."""
    if not _Lib.checked:
        _Lib.checked = True
        if mkl.lapack_available():
            _bind(mkl.library())
    return _Lib.fns.get((name, dt))


def _bind(lib: Any) -> None:
    """gemm, gemv and dot without argtypes (ctypes' per-argument conversion was half of a
    20x20 product's call): callers pass ints (each < 2**31, MKL_INT is 32-bit), pointers as
    c_void_p and scalars as the dtype's ctypes type. `lib[name]` is a pointer of our own, so
    MKL's cached attributes keep whatever others set on them."""
    for dt, p in _PREFIX.items():
        real = _SCALAR[dt]
        for name in ("gemm", "gemv", "dot"):
            fn = lib[f"cblas_{p}{name}"]
            fn.restype = real if name == "dot" else None
            _Lib.fns[(name, dt)] = fn
            _Lib.addresses[(name, dt)] = ctypes.cast(fn, _P).value or 0
        batch = getattr(lib, f"cblas_{p}gemm_batch")
        batch.restype = None
        arr = ctypes.POINTER(_I)
        batch.argtypes = (_I, arr, arr, arr, arr, arr, _P, _P, arr, _P, arr, _P, _P, arr, _I, arr)
        _Lib.fns[("gemm_batch", dt)] = batch


def _strides(a: np.ndarray) -> tuple[int, ...]:
    size = a.itemsize
    return tuple(s // size for s in a.strides)


def _ptr(a: np.ndarray) -> Any:
    """a's first element's address as an argument of the argtype-less calls."""
    return _P(mkl.address(a))


def _fits(*dims: int) -> bool:
    return all(0 < d <= _INT_MAX for d in dims)


def _operand(
    x: np.ndarray, rows: int, major: int, lead: int, copied: bool
) -> tuple[np.ndarray, bool, tuple[int, ...]]:
    """`addmm_impl_cpu_`'s reading of operand x (2-D): (array, transposed, its strides in
    elements). With stride index `major` 1 and leading dimension at least `lead` it is used as
    it is, not transposed; with the other index 1 and the leading dimension at least `rows`,
    transposed; else it is copied to contiguous and read transposed or not as `copied` says."""
    st = _strides(x)
    if st[major] == 1 and st[1 - major] >= max(1, lead):
        return x, False, st
    if st[1 - major] == 1 and st[major] >= max(1, rows):
        return x, True, st
    x = np.ascontiguousarray(x)
    return x, copied, _strides(x)


def _gemm_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float, beta: float) -> bool:
    """out = beta * out + alpha * (a @ b) as torch's addmm_impl_cpu_ calls gemm; False when
    MKL cannot take it (the caller uses numpy)."""
    m, k = a.shape
    n = b.shape[1]
    gemm = _fn("gemm", out.dtype)
    if gemm is None or not _fits(m, n, k):
        return False
    direct = kernels.gemm_into  # the decisions below, compiled, where no operand is copied
    if direct is not None and direct(_Lib.addresses[("gemm", out.dtype)], out, a, b, alpha, beta):
        return True
    # The result: C-contiguous (m, n). torch: strides (1, 1) for n == 1 read column-major,
    # else row-major: swap the operands and compute out^T = b^T a^T.
    transpose_c = n != 1
    if transpose_c:
        a, b, m, n = b, a, n, m  # out^T, column-major with leading dimension m (now n's)
    ldc = m
    idx = 1 if transpose_c else 0
    # a is m x k (after the swap, read through the `transpose_c` axis order)
    a, ta, sa = _operand(a, k, idx, m, not transpose_c)
    b, tb, sb = _operand(b, n, idx, k, not transpose_c)
    lda = sa[1 if ta == transpose_c else 0]
    ldb = sb[1 if tb == transpose_c else 0]
    # normalize_last_dims: leading dimensions that do not matter, made valid
    if n == 1:
        ldc = m
    if ta:
        lda = k if m == 1 else lda
    elif k == 1:
        lda = m
    if tb:
        ldb = n if k == 1 else ldb
    elif n == 1:
        ldb = k
    if lda < max(1, k if ta else m) or ldb < max(1, n if tb else k) or ldc < max(1, m):
        return False
    flag_a, flag_b = _T if ta else _N, _T if tb else _N
    if kernels.call_gemm is not None:  # one compiled call instead of ctypes' conversions
        address = _Lib.addresses[("gemm", out.dtype)]
        kernels.call_gemm(
            address, flag_a, flag_b, m, n, k, alpha, (a, lda), (b, ldb), beta, (out, ldc)
        )
        return True
    real = _SCALAR[out.dtype]
    gemm(
        _COL_MAJOR, flag_a, flag_b, m, n, k,
        real(alpha), _ptr(a), lda, _ptr(b), ldb, real(beta), _ptr(out), ldc,
    )  # fmt: skip
    return True


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for 2-D a (m, k) and b (k, n): torch.mm's bits with MKL."""
    if a.dtype == b.dtype and a.dtype in _PREFIX:
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)  # beta 0: gemm does not read it
        if _gemm_into(out, a, b, 1.0, 0.0):
            return out
    return np.matmul(a, b)


def addmm(c: np.ndarray, a: np.ndarray, b: np.ndarray, beta: Any, alpha: Any) -> np.ndarray:
    """beta * c + alpha * (a @ b), c broadcast to (m, n): torch.addmm's bits with MKL."""
    shape = (a.shape[0], b.shape[1])
    if a.dtype == b.dtype == c.dtype and a.dtype in _PREFIX:
        out = np.empty(shape, a.dtype)
        np.copyto(out, c)
        if _gemm_into(out, a, b, float(alpha), 0.0 if beta == 0 else float(beta)):
            return out
    prod = np.matmul(a, b)
    if alpha != 1:
        prod = prod * alpha
    return (prod + (c if beta == 1 else c * beta)).astype(a.dtype, copy=False)


def mv(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """a @ x for 2-D a (m, n) and 1-D x: torch.mv's bits with MKL.
    NOTE: a 20x20 call is mostly its Python; strides are compared in bytes."""
    gemv = _fn("gemv", a.dtype) if a.dtype == x.dtype else None
    m, n = a.shape
    if gemv is not None and 0 < m <= _INT_MAX and 0 < n <= _INT_MAX:
        out = np.zeros(m, a.dtype)
        address = _Lib.addresses[("gemv", a.dtype)]
        if kernels.mv is not None and kernels.mv(address, a, x, out):  # the decisions below
            return out
        size = a.itemsize
        s0, s1 = a.strides
        if s0 == size and (n == 1 or s1 >= max(1, m) * size):
            trans, rows, cols, lda = _N, m, n, s1 // size
        else:
            if not (s1 == size and (m == 1 or s0 >= max(1, n) * size)):
                a = np.ascontiguousarray(a)
            trans, rows, cols, lda = _T, n, m, a.strides[0] // size
        if cols == 1:
            lda = rows
        inc = x.strides[0] // size
        if inc > 0 and lda >= max(1, rows):
            if kernels.call_gemv is not None:  # one compiled call instead of ctypes'
                kernels.call_gemv(address, trans, rows, cols, (a, lda), (x, inc), out)
                return out
            one, zero = _ONES[a.dtype]
            gemv(_COL_MAJOR, trans, rows, cols, one, _ptr(a), lda, _ptr(x), inc, zero, _ptr(out), 1)
            return out
    return _dot(a, x) if a.dtype == x.dtype and a.dtype in _PREFIX else np.matmul(a, x)


def dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x @ y for 1-D x and y: torch.dot's bits with MKL (a 0-d array)."""
    fn = _fn("dot", x.dtype) if x.dtype == y.dtype else None
    n = x.shape[0]
    if fn is not None and _fits(n):
        ix, iy = (1, 1) if n == 1 else (_strides(x)[0], _strides(y)[0])
        if ix > 0 and iy > 0:
            return np.array(fn(n, _ptr(x), ix, _ptr(y), iy), x.dtype)
    return np.asarray(_dot(x, y))


def _batch_major(st: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Every matrix of a 3-D batch is row-major or column-major (torch's test before MKL)."""
    return (st[2] == 1 and (shape[1] == 1 or st[1] >= shape[2])) or (
        st[1] == 1 and (shape[2] == 1 or st[2] >= shape[1])
    )


def bmm(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray | None = None,
    beta: float = 0.0,
    alpha: float = 1.0,
) -> np.ndarray:
    """a @ b for 3-D a (bs, m, k) and b (bs, k, n), or with c (broadcast to the result)
    baddbmm's beta * c + alpha * (a @ b): torch's bits with MKL."""
    bs, m, k = a.shape
    n = b.shape[2]
    dt = a.dtype
    exact = dt == b.dtype and dt in _PREFIX and (c is None or c.dtype == dt)
    if not exact or _fn("gemm_batch", dt) is None or bs * m * n * k == 0:
        prod = np.matmul(a, b)
        if c is None:
            return prod
        return np.asarray(c * beta + prod * alpha if beta else prod * alpha, dtype=dt)
    if k * m * n < _SMALL_BMM:
        return _bmm_loop(a, b, c, beta, alpha)
    out = np.zeros((bs, m, n), dt)
    if c is not None:
        np.copyto(out, c)
    else:
        beta = 0.0
    sa, sb = _strides(a), _strides(b)
    if _fits(bs, m, n, k) and _batch_major(sa, a.shape) and _batch_major(sb, b.shape):
        if _bmm_mkl(out, a, b, sa, sb, beta, alpha):
            return out
    for i in range(bs):
        if not _gemm_into(out[i], a[i], b[i], alpha, beta):
            return np.asarray(out * beta + np.matmul(a, b) * alpha, dtype=dt)
    return out


def _bmm_loop(
    a: np.ndarray, b: np.ndarray, c: np.ndarray | None, beta: float, alpha: float
) -> np.ndarray:
    """baddbmm_cpu_kernel: each element's products added in order of k, from zero; then the
    element itself (bmm), alpha times it (beta 0) or beta * c + alpha times it."""
    acc = np.zeros((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
    for j in range(a.shape[2]):
        acc += a[:, :, j, None] * b[:, None, j, :]
    if c is None:
        return acc
    if beta == 0:
        return acc * acc.dtype.type(alpha)
    return c * acc.dtype.type(beta) + acc * acc.dtype.type(alpha)


def _bmm_mkl(
    out: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    sa: tuple[int, ...],
    sb: tuple[int, ...],
    beta: float,
    alpha: float,
) -> bool:
    """baddbmm_mkl_template: one cblas_?gemm_batch group in row-major layout, into `out`
    (holding c when beta is not 0); False when a size-1 dim's stride is one MKL refuses."""
    bs, m, k = a.shape
    n = b.shape[2]
    ta = sa[1] == 1 and sa[2] >= m
    tb = sb[1] == 1 and sb[2] >= k
    lda = sa[2] if ta else sa[1]
    ldb = sb[2] if tb else sb[1]
    if lda < max(1, m if ta else k) or ldb < max(1, k if tb else n):
        return False
    ptr_t = ctypes.c_void_p * bs
    step_a, step_b = a.strides[0], b.strides[0]
    pa, pb, pc = mkl.address(a), mkl.address(b), mkl.address(out)
    real = _SCALAR[a.dtype]
    one = _I * 1
    args = (
        one(_T if ta else _N), one(_T if tb else _N), one(m), one(n), one(k),
        ctypes.byref(real(alpha)), ptr_t(*[pa + i * step_a for i in range(bs)]), one(lda),
        ptr_t(*[pb + i * step_b for i in range(bs)]), one(ldb),
        ctypes.byref(real(beta)), ptr_t(*[pc + i * m * n * a.itemsize for i in range(bs)]),
        one(n), 1, one(bs),
    )  # fmt: skip
    _fn("gemm_batch", a.dtype)(_ROW_MAJOR, *args)
    return True


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The product torch's mm, mv, dot or bmm computes for these ranks (2-2, 2-1, 1-1, 3-3);
    other ranks broadcast through numpy."""
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim == 3 and b.ndim == 3:
        return bmm(a, b)
    return np.matmul(a, b)
