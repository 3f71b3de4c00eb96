"""Intel MKL, the library torch's CPU build links, reached through ctypes when the optional
`mkl` wheel is installed (`pip install detachviz[exact]`): its VML elementwise functions and
LAPACK's QR give torch's bits where no numpy formulation does.

torch 2.13 (pip, CPU) links MKL 2024.2 statically and calls:
- `at::vml::v<op>` = `vm{s,d}<Op>(n, in, out, VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE)`
  for float32/float64 sin, cos, exp, log (`Ln`), tanh and sqrt, at every size (strided inputs
  are copied to a buffer first);
- `?geqrf` and `?orgqr` for `torch.linalg.qr` (so `nn.init.orthogonal_`), through MKL's
  OpenMP-threaded layer.

Measured against torch on this project's CI machine (AVX2): VML results are bit-identical with
the 2024.2 and the 2026.2 wheels alike; the QR is bit-identical only with 2024.2 (2026.2 differs
in 87% of elements) and only with a threaded layer (the sequential one takes other blocked
paths for some shapes), so LAPACK is used only from torch's version, threaded (GNU OpenMP as
torch, Intel's when libgomp is missing).

Loaded on first use, never at import. `DETACHVIZ_NO_MKL=1` turns it off (the numpy fallbacks
are tested that way)."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any

import numpy as np

from detachviz.engine import kernels

OFF_ENV = "DETACHVIZ_NO_MKL"
TORCH_MKL = "2024.2"  # the MKL torch 2.13 links: its LAPACK bits are torch's

_VML_MODE = ctypes.c_int64(0x2 | 0x140000 | 0x100)  # VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE
_COL_MAJOR = 102  # LAPACK_COL_MAJOR
_GNU, _INTEL = 3, 0  # MKL_THREADING_GNU, MKL_THREADING_INTEL
_DOMAIN_VML = 3  # MKL_DOMAIN_VML
_CHUNK = (1 << 31) - 1  # MKL_INT is 32-bit (LP64)
# From this many elements a call is split into one part per core, run on threads: ctypes
# releases the GIL and VML's bits do not depend on the split (torch splits likewise, in
# at::parallel_for's grains), so large tensors cost what numpy's one-core kernels cost or less.
PARALLEL_MIN = 1 << 16
_PTR = ctypes.c_void_p
_VML_TYPES = {np.dtype(np.float32): "vms", np.dtype(np.float64): "vmd"}
_LAPACK_TYPES = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}


class _State:
    loaded = False
    lib: Any = None
    version = ""
    pool: Any = None  # the threads of PARALLEL_MIN's split, made on the first large call


_CORES = os.cpu_count() or 1  # asked once: the call costs ~10 µs, as much as a small VML call


def _parts(n: int) -> list[tuple[int, int]]:
    """(start, count) pieces of n elements: one per core from PARALLEL_MIN up, within _CHUNK."""
    pieces = _CORES if n >= PARALLEL_MIN else 1
    size = max(1, min(_CHUNK, -(-n // pieces)))
    return [(start, min(size, n - start)) for start in range(0, n, size)]


def _run_parts(call: Any, parts: list[tuple[int, int]]) -> None:
    if len(parts) <= 1:
        for part in parts:
            call(*part)
        return
    if _State.pool is None:
        from concurrent.futures import ThreadPoolExecutor

        _State.pool = ThreadPoolExecutor(_CORES, thread_name_prefix="detachviz-vml")
    for done in [_State.pool.submit(call, *part) for part in parts]:
        done.result()


def _dist_file(dist: str, stem: str) -> Path | None:
    """The first file of installed distribution `dist` whose name starts with `stem`."""
    from importlib import metadata

    try:
        d = metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return None
    for f in d.files or ():
        if f.name.startswith(stem) and (".so" in f.name or f.name.endswith(".dll")):
            return Path(str(d.locate_file(f))).resolve()
    return None


def _threaded(lib: Any) -> bool:
    """Select an OpenMP-threaded layer whose runtime can be loaded (torch's MKL is threaded)."""
    for layer, runtime in ((_GNU, "libgomp.so.1"), (_INTEL, None)):
        path = runtime if runtime else _dist_file("intel-openmp", "libiomp5")
        if path is None:
            continue
        try:
            ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        if lib.MKL_Set_Threading_Layer(ctypes.c_int(layer)) == layer:
            return True
    return False


def library() -> Any:
    """The loaded libmkl_rt, or None (no `mkl` wheel, no threading runtime, or turned off)."""
    if _State.loaded:
        return _State.lib
    _State.loaded = True
    if os.environ.get(OFF_ENV):
        return None
    path = _dist_file("mkl", "libmkl_rt")
    if path is None:
        path = _dist_file("mkl", "mkl_rt")
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(str(path))
    except OSError:
        return None
    if not _threaded(lib):
        return None
    # VML's bits do not depend on threads, its speed on a busy machine does (OpenMP barriers):
    # elementwise calls run on the calling thread, LAPACK keeps torch's thread count
    lib.MKL_Domain_Set_Num_Threads(ctypes.c_int(1), ctypes.c_int(_DOMAIN_VML))
    from importlib import metadata

    _State.lib = lib
    _State.version = metadata.version("mkl")
    return lib


def available() -> bool:
    return library() is not None


def address(a: np.ndarray) -> int:
    """The address of a's first element: the compiled kernels' one call where built, else
    through ctypes' buffer route where it applies (a third of `a.ctypes.data`'s cost, which is
    most of a small call's)."""
    if kernels.address is not None:
        return kernels.address(a)  # type: ignore[no-any-return]
    flags = a.flags
    if flags.writeable and (flags.c_contiguous or flags.f_contiguous):
        dense = a if flags.c_contiguous else a.T  # the same first element, C-contiguous
        return ctypes.addressof(ctypes.c_char.from_buffer(dense))  # type: ignore[arg-type]
    return int(a.ctypes.data)


def vml(name: str, fallback: Any = None) -> Any:
    """`f(a)` computing VML's `name` (Sin, Cos, Exp, Ln, Tanh, Sqrt) on a float32/float64 array
    as torch does (other dtypes: `fallback(a)`), or None without MKL.
    NOTE: a 20-element call costs what its Python does (a VML call itself is ~1.5 µs): one
    flags lookup, one dict lookup, then the compiled kernels' direct call (engine/kernels.py)
    or, without them, ctypes' with the output's address from the buffer protocol."""
    lib = library()
    if lib is None:
        return None
    fns = {}
    for dt, prefix in _VML_TYPES.items():
        fn = getattr(lib, prefix + name)
        fn.restype = None
        fn.argtypes = (ctypes.c_int, _PTR, _PTR, ctypes.c_int64)
        fns[dt] = fn
    mode = _VML_MODE
    from_buffer = ctypes.c_char.from_buffer
    addressof = ctypes.addressof
    empty_like = np.empty_like
    call_vml = kernels.call_vml  # the compiled kernels' direct call, where built
    if call_vml is not None:
        where = {dt: ctypes.cast(fn, _PTR).value for dt, fn in fns.items()}
        mode_value = mode.value

    def run(a: Any) -> Any:
        if type(a) is not np.ndarray:
            a = np.asarray(a)
        fn = fns.get(a.dtype)
        if fn is None:
            if fallback is None:
                raise TypeError(f"VML {name} takes float32 or float64, not {a.dtype}")
            return fallback(a)
        n = a.size
        flags = a.flags
        if n and n < PARALLEL_MIN and flags.c_contiguous:  # the common small call
            if call_vml is not None:
                out = empty_like(a)
                call_vml(where[a.dtype], a, out, mode_value)
                return out
            if flags.writeable:
                out = empty_like(a)
                fn(n, addressof(from_buffer(a)), addressof(from_buffer(out)), mode)
                return out
        return _run_any(fn, a)

    run.__name__ = name
    return run


def _run_any(fn: Any, a: np.ndarray) -> np.ndarray:
    """vml's call for every other array: strided, read-only, empty or large."""
    x = a
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        x = np.empty_like(a)  # dense, in a's memory order: the result keeps a's layout
        np.copyto(x, a)  # as torch's (and numpy's) elementwise results do
    out = np.empty_like(x)
    n = x.size
    if n == 0:
        return out
    src, dst = address(x), address(out)
    step = x.itemsize

    def piece(start: int, k: int) -> None:
        fn(k, src + start * step, dst + start * step, _VML_MODE)

    _run_parts(piece, _parts(n))
    return out


def lapack_available() -> bool:
    """MKL is loaded and is torch's version (other versions' QR differs: module docstring)."""
    return library() is not None and _State.version.startswith(TORCH_MKL)


def qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch.linalg.qr(a) (mode 'reduced') of a 2-D float32/float64 array by MKL's geqrf and
    orgqr, column-major as torch calls them: Q (m, k) and R (k, n), k = min(m, n).
    Only when lapack_available()."""
    lib = library()
    t = _LAPACK_TYPES[a.dtype]
    m, n = a.shape
    k = min(m, n)
    f = np.array(a, order="F", copy=True)
    tau = np.empty(max(k, 1), a.dtype)
    lda = max(m, 1)
    info = getattr(lib, f"LAPACKE_{t}geqrf")(
        ctypes.c_int(_COL_MAJOR), ctypes.c_int(m), ctypes.c_int(n), _PTR(f.ctypes.data),
        ctypes.c_int(lda), _PTR(tau.ctypes.data),
    )  # fmt: skip
    if info != 0:
        raise RuntimeError(f"MKL {t}geqrf failed (info={info})")
    r = np.triu(f[:k, :])
    q = np.array(f[:, :k], order="F", copy=True)
    info = getattr(lib, f"LAPACKE_{t}orgqr")(
        ctypes.c_int(_COL_MAJOR), ctypes.c_int(m), ctypes.c_int(k), ctypes.c_int(k),
        _PTR(q.ctypes.data), ctypes.c_int(lda), _PTR(tau.ctypes.data),
    )  # fmt: skip
    if info != 0:
        raise RuntimeError(f"MKL {t}orgqr failed (info={info})")
    return q, r
