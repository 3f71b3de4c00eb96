"""torch's CPU random generator, bit for bit: the Mersenne Twister, its state bytes, and the
draws behind rand/randn/randint/randperm/bernoulli/multinomial/exponential as numpy arrays.

Every function takes a `Generator` and returns numpy values; no Tensor lives here. The
transforms follow PyTorch 2.13's CPU kernels (DistributionsHelper.h, TransformationHelper.h,
cpu/DistributionTemplates.h, TensorFactories.cpp, MultinomialKernel.cpp) as compiled for the
AVX2 capability with GCC's default floating-point contraction: where that build fuses a multiply
and an add into one FMA, the emulation rounds once too (engine/fma.py).
"""

from __future__ import annotations

import math
import os
import struct
from typing import Any

import numpy as np

from detachviz.engine import libm
from detachviz.engine.fma import Fused, fma32, fma64

# torch's default seed for a Generator() made without one (c10 default_rng_seed_val).
DEFAULT_GENERATOR_SEED = 67280421310721
_N = 624  # Mersenne Twister state words
# CPUGeneratorImplState: legacy_pod {u64 seed, i32 left, i32 seeded, u64 next, u64 state[624],
# f64 normal_x, normal_y, normal_rho, i32 normal_is_valid, 4 pad} then f32 next_float_normal,
# bool valid, 3 pad: 5056 bytes, little-endian on every platform torch ships for.
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
STATE_SIZE = _HEAD.size + 8 * _N + _TAIL.size
_SEED_MIN = -(2**63)
_SEED_MAX = 2**64 - 1
_MASK24 = np.uint64(0xFFFFFF)
_MASK53 = np.uint64((1 << 53) - 1)
_F32_2PI = np.float32(2.0 * math.pi)


class Generator:
    """torch.Generator on the CPU: a 32-bit Mersenne Twister seeded with init_genrand, plus
    the cached second sample of the scalar Box-Muller normal."""

    def __init__(self, seed: int = DEFAULT_GENERATOR_SEED) -> None:
        self._twister: Any = None  # numpy's MT19937, made at the first draw
        self.manual_seed(seed)

    # -- the twister: numpy.random (~15 modules) is imported at the first draw, not at
    # startup; until then the generator holds the state it would set ----------------------
    def _bits(self) -> Any:
        if self._twister is None:
            self._twister = np.random.MT19937()
            self._twister.state = self._pending
        return self._twister

    def _set_twister(self, key: np.ndarray, pos: int) -> None:
        state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        if self._twister is None:
            self._pending = state
        else:
            self._twister.state = state

    def _twister_state(self) -> Any:
        return self._pending["state"] if self._twister is None else self._twister.state["state"]

    # -- seeding ---------------------------------------------------------------------------
    def manual_seed(self, seed: Any) -> Generator:
        seed = int(seed)
        if not _SEED_MIN <= seed <= _SEED_MAX:
            raise RuntimeError("Overflow when unpacking long long")
        seed %= 2**64  # NOTE: torch reads a negative seed as its unsigned 64-bit pattern
        self._seed = seed
        key = np.empty(_N, dtype=np.uint32)
        # NOTE: the engine keeps all 64 bits as initial_seed() but seeds the twister with the
        # low 32 (init_genrand takes a uint32), so 2**32 + 5 draws what 5 draws.
        word = seed & 0xFFFFFFFF
        key[0] = word
        for j in range(1, _N):
            word = (1812433253 * (word ^ (word >> 30)) + j) & 0xFFFFFFFF
            key[j] = word
        self._set_twister(key, _N)
        self._fresh = True  # torch's `next` field reads 0 (not 624) until the first draw
        self.next_double_normal: float | None = None
        self.next_float_normal: float | None = None
        return self

    def seed(self) -> int:
        """A seed from the OS, as torch's seed(): documented as not reproducible."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    # -- raw draws -------------------------------------------------------------------------
    def random32(self, n: int) -> np.ndarray:
        """n raw 32-bit draws (as uint64), torch's generator->random()."""
        if n <= 0:
            return np.zeros(0, dtype=np.uint64)
        self._fresh = False
        return self._bits().random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """n 64-bit draws, torch's random64(): the first 32-bit draw is the high half."""
        r = self.random32(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    # -- state bytes -----------------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        """The 5056 state bytes torch.get_rng_state() returns, byte for byte."""
        st = self._twister_state()
        pos = int(st["pos"])
        nxt = 0 if (self._fresh and pos == _N) else pos
        left = _N + 1 - pos
        head = _HEAD.pack(self._seed, left, 1, nxt)
        words = np.asarray(st["key"], dtype=np.uint32).astype("<u8").tobytes()
        dn, fn = self.next_double_normal, self.next_float_normal
        tail = _TAIL.pack(
            0.0, dn or 0.0, 0.0, dn is not None, fn if fn is not None else 0.0, fn is not None
        )
        return np.frombuffer(head + words + tail, dtype=np.uint8).copy()

    def set_state(self, state: Any) -> Generator:
        """Restore bytes from get_state() here or from torch.get_rng_state() under torch."""
        data = np.asarray(state)
        if data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if data.size != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
                f"RNG state size to be {data.size}"
            )
        raw = data.tobytes()
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        words = np.frombuffer(raw, dtype="<u8", count=_N, offset=_HEAD.size)
        _, dn, _, dn_ok, fn, fn_ok = _TAIL.unpack_from(raw, _HEAD.size + 8 * _N)
        nxt &= 0xFFFFFFFF
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = (words & 0xFFFFFFFF).astype(np.uint32)
        # NOTE: torch draws state[next] after `--left`, regenerating at 0: the next word is
        # state[625 - left], which is numpy's `pos` (624 means "twist first").
        self._set_twister(key, _N + 1 - left)
        self._fresh = left == 1 and nxt == 0
        self._seed = seed
        self.next_double_normal = dn if dn_ok else None
        self.next_float_normal = fn if fn_ok else None
        return self

    def clone(self) -> Generator:
        other = type(self).__new__(type(self))
        other._twister = None
        Generator.set_state(other, Generator.get_state(self))
        return other


# ------------------------------------------------------------------------------------------
# Uniform
# ------------------------------------------------------------------------------------------
def unit32(gen: Generator, n: int) -> np.ndarray:
    """n float32 uniforms in [0, 1): the low 24 bits of one 32-bit draw each, times 2**-24."""
    return (gen.random32(n) & _MASK24).astype(np.float32) * np.float32(2.0**-24)


def unit64(gen: Generator, n: int) -> np.ndarray:
    """n float64 uniforms in [0, 1): the low 53 bits of one 64-bit draw each, times 2**-53."""
    return (gen.random64(n) & _MASK53).astype(np.float64) * 2.0**-53


def uniform(
    gen: Generator, shape: tuple[int, ...], np_dtype: Any, low: float = 0.0, high: float = 1.0
) -> np.ndarray:
    """Tensor.uniform_(low, high): `x * (high - low) + low`, one fused rounding, in the dtype."""
    if not low <= high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(low)} > "
            f"to={_num(high)}"
        )
    n = math.prod(shape)
    if np.dtype(np_dtype) == np.float64:
        x = unit64(gen, n)
        out = x if (low, high) == (0.0, 1.0) else fma64(x, high - low, low)
    else:
        # NOTE: float16 and the rest draw as float32 and round once more (torch masks 11 bits
        # for half; not emulated).
        x = unit32(gen, n)
        lo, hi = np.float32(low), np.float32(high)
        out = x if (low, high) == (0.0, 1.0) else fma32(x, hi - lo, lo)
    return out.reshape(shape).astype(np_dtype, copy=False)


def _num(v: float) -> str:
    return f"{v:g}" if float(v) != int(v) else str(int(v))


# ------------------------------------------------------------------------------------------
# Normal
# ------------------------------------------------------------------------------------------
def normal(
    gen: Generator,
    shape: tuple[int, ...],
    np_dtype: Any,
    mean: float = 0.0,
    std: float = 1.0,
    contiguous: bool = True,
) -> np.ndarray:
    """Tensor.normal_(mean, std) by torch's three paths: float32 of 16+ elements through the
    AVX2 Box-Muller kernel, float64 of 16+ through the scalar-loop Box-Muller, and anything
    smaller (or not contiguous) through the double-precision sampler with its cached sample."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    n = math.prod(shape)
    dt = np.dtype(np_dtype)
    if n >= 16 and contiguous and dt == np.float32:
        out = _blocks16(gen, n, np.float32, _box_muller_avx2, mean, std)
    elif n >= 16 and contiguous and dt == np.float64:
        out = _blocks16(gen, n, np.float64, _box_muller_f64, mean, std)
    else:
        out = _scalar_normals(gen, n, mean, std)
    return out.reshape(shape).astype(dt, copy=False)


def _blocks16(gen: Generator, n: int, dt: Any, kernel: Any, mean: float, std: float) -> np.ndarray:
    """normal_fill: n uniforms transformed 16 at a time (u1 = 1 - x[j], u2 = x[j + 8]); when n
    is no multiple of 16, 16 fresh uniforms replace the last 16 and are transformed again.
    All blocks (the replacement one too) go through the kernel in one vectorised call."""
    draw = unit32 if dt == np.float32 else unit64
    data = draw(gen, n)
    full = n - n % 16
    blocks = data[:full].reshape(-1, 16)
    if n % 16:
        blocks = np.concatenate([blocks, draw(gen, 16)[None]])
    out = kernel(blocks[:, :8], blocks[:, 8:], mean, std)
    data[:full] = out[: full // 16].reshape(-1)
    if n % 16:
        data[n - 16 :] = out[-1]
    return data


def _box_muller_f64(x: np.ndarray, u2: np.ndarray, mean: float, std: float) -> np.ndarray:
    radius = np.sqrt(-2.0 * libm.log(1.0 - x))
    theta = (2.0 * math.pi) * u2
    n1, n2 = radius * libm.cos(theta), radius * libm.sin(theta)
    if (mean, std) != (0.0, 1.0):
        n1, n2 = fma64(n1, std, mean), fma64(n2, std, mean)
    return np.concatenate([n1, n2], axis=-1)


def _box_muller_avx2(x: np.ndarray, u2: np.ndarray, mean: float, std: float) -> np.ndarray:
    """The AVX2 kernel's float32 Box-Muller; its fused multiply-adds run through a Fused
    recorder, and through the exact fma32 only if some step double-rounded."""
    fused = Fused()
    out = _box_muller_f32(x, u2, mean, std, fused)
    return out if fused.exact() else _box_muller_f32(x, u2, mean, std, fma32)


def _box_muller_f32(x: np.ndarray, u2: np.ndarray, mean: float, std: float, fma: Any) -> np.ndarray:
    radius = np.sqrt(np.float32(-2.0) * _log256(np.float32(1.0) - x, fma))
    sin, cos = _sincos256(_F32_2PI * u2, fma)
    n1, n2 = radius * cos, radius * sin
    if (mean, std) != (0.0, 1.0):
        m, s = np.float32(mean), np.float32(std)
        n1, n2 = fma(n1, s, m), fma(n2, s, m)
    return np.concatenate([n1, n2], axis=-1)


# Cephes single-precision coefficients, as avx_mathfun.h's log256_ps and sincos256_ps use them.
_LOG_P = tuple(
    np.float32(c)
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_SQRTHF = np.float32(0.707106781186547524)
_DP = (
    np.float32(-0.78515625),
    np.float32(-2.4187564849853515625e-4),
    np.float32(-3.77489497744594108e-8),
)
_COS_P = (
    np.float32(2.443315711809948e-5),
    np.float32(-1.388731625493765e-3),
    np.float32(4.166664568298827e-2),
)
_SIN_P = (np.float32(-1.9515295891e-4), np.float32(8.3321608736e-3), np.float32(-1.6666654611e-1))
_FOPI = np.float32(1.27323954473516)
_ONE, _HALF = np.float32(1.0), np.float32(0.5)


def _log256(x: np.ndarray, fma: Any) -> np.ndarray:
    """log256_ps for x in (0, 1]: exponent split, the Cephes polynomial; every `y*x + p` and the
    closing adds fused as GCC contracts them (the earlier multiply takes the add)."""
    x = np.maximum(x, np.float32(1.1754944e-38))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + _ONE
    x = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)
    small = x < _SQRTHF
    x = (x - _ONE) + np.where(small, x, np.float32(0.0))
    e = e - np.where(small, _ONE, np.float32(0.0))
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = fma(y, x, p)
    y = y * x
    y = fma(y, z, e * _LOG_Q1)
    y = fma(-z, _HALF, y)
    return fma(e, _LOG_Q2, x + y)


def _sincos256(x: np.ndarray, fma: Any) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps for x >= 0: octant from x*4/pi, three-part reduction, both polynomials."""
    j = (x * _FOPI).astype(np.int32)  # cvtt: truncation
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    sin_neg = (j & 4) != 0
    cos_neg = (~(j - 2) & 4) != 0
    use_sin_poly = (j & 2) == 0
    for dp in _DP:
        x = fma(y, dp, x)
    z = x * x
    c = np.full_like(x, _COS_P[0])
    c = fma(c, z, _COS_P[1])
    c = fma(c, z, _COS_P[2])
    c = c * z
    c = fma(c, z, -(z * _HALF)) + _ONE
    s = np.full_like(x, _SIN_P[0])
    s = fma(s, z, _SIN_P[1])
    s = fma(s, z, _SIN_P[2])
    s = fma(s * z, x, x)
    sin = np.where(use_sin_poly, s, c)
    cos = np.where(use_sin_poly, c, s)
    return np.where(sin_neg, -sin, sin), np.where(cos_neg, -cos, cos)


def _scalar_normals(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """at::normal_distribution<double>: Box-Muller on two float64 uniforms (u1 the angle, u2
    the radius), returning r*cos and caching r*sin for the next call; `val*std + mean` fused.
    The values come out as [cached?] c0, s0, c1, s1, ...; an odd count leaves the last sine
    cached. The uniforms are drawn in one call, the libm math stays per pair (math's log1p,
    sin and cos are the C library's, as torch's)."""
    out: list[float] = []
    if n and gen.next_double_normal is not None:
        out.append(gen.next_double_normal)
        gen.next_double_normal = None
    pairs = (n - len(out) + 1) // 2
    u = unit64(gen, 2 * pairs).tolist()
    two_pi, log1p, sqrt, cos, sin = 2.0 * math.pi, math.log1p, math.sqrt, math.cos, math.sin
    for u1, u2 in zip(u[0::2], u[1::2]):
        r = sqrt(-2.0 * log1p(-u2))
        theta = two_pi * u1
        out += (r * cos(theta), r * sin(theta))
    if len(out) > n:
        gen.next_double_normal = out.pop()
    vals = np.array(out, dtype=np.float64)
    if (mean, std) != (0.0, 1.0):
        vals = fma64(vals, std, mean)
    return vals


# ------------------------------------------------------------------------------------------
# Integers
# ------------------------------------------------------------------------------------------
_WIDE = frozenset(np.dtype(d) for d in (np.int64, np.float64, np.float32))
_TOP = {  # what random_() with no bounds draws from: [0, top)
    np.dtype(np.bool_): 2,
    np.dtype(np.uint8): 2**8,
    np.dtype(np.int8): 2**7,
    np.dtype(np.int16): 2**15,
    np.dtype(np.int32): 2**31,
    np.dtype(np.int64): 2**63,
    np.dtype(np.float16): 2**11 + 1,
    np.dtype(np.float32): 2**24 + 1,
    np.dtype(np.float64): 2**53 + 1,
}


def random_int(
    gen: Generator, shape: tuple[int, ...], np_dtype: Any, low: int, high: int
) -> np.ndarray:
    """Tensor.random_(low, high) and randint: `draw % (high - low) + low`, with a 64-bit draw
    when the range needs 32+ bits and the dtype is int64/float64/float32."""
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    n = math.prod(shape)
    span = high - low
    wide = span >= 2**32 and np.dtype(np_dtype) in _WIDE
    draws = gen.random64(n) if wide else gen.random32(n)
    vals = (draws % np.uint64(span)).astype(np.int64) + np.int64(low)
    return vals.reshape(shape).astype(np_dtype)


def random_bits(gen: Generator, shape: tuple[int, ...], np_dtype: Any) -> np.ndarray:
    """Tensor.random_() without bounds: [0, 2**(bits-1)) for signed ints, [0, 2**mantissa]
    for floats (64-bit draws for int64 and float64, 32-bit for the rest)."""
    dt = np.dtype(np_dtype)
    n = math.prod(shape)
    draws = gen.random64(n) if dt in (np.dtype(np.int64), np.dtype(np.float64)) else gen.random32(n)
    vals = draws % np.uint64(_TOP[dt])
    return vals.astype(np.int64).reshape(shape).astype(dt)


def randperm(gen: Generator, n: int) -> np.ndarray:
    """torch.randperm(n): swap element i with i + draw % (n - i), one 32-bit draw per step.
    That is torch's path for n below 2**32 / 20 (= 214,748,364, so 2**24 and more take it
    too); above, torch switches to an inside-out shuffle with 64-bit draws (not emulated:
    refused). The swap targets are computed at once; only the swaps run in order."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    if n >= _RANDPERM_SMALL:
        raise RuntimeError(
            f"randperm: n >= {_RANDPERM_SMALL} (torch's 64-bit shuffle) is not emulated"
        )
    steps = np.arange(n - 1, dtype=np.uint64)
    targets = (steps + gen.random32(n - 1) % (np.uint64(n) - steps)).tolist()
    perm = list(range(n))
    for i, z in enumerate(targets):
        perm[i], perm[z] = perm[z], perm[i]
    return np.array(perm, dtype=np.int64)


_RANDPERM_SMALL = 0xFFFFFFFF // 20


# ------------------------------------------------------------------------------------------
# Bernoulli, exponential, multinomial
# ------------------------------------------------------------------------------------------
def bernoulli_scalar(gen: Generator, shape: tuple[int, ...], p: float) -> np.ndarray:
    """Tensor.bernoulli_(p) (and dropout's mask): one float64 uniform each, 1 where u < p."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return (unit64(gen, math.prod(shape)) < p).reshape(shape)


def bernoulli_tensor(gen: Generator, p: np.ndarray) -> np.ndarray:
    """torch.bernoulli(p): a float32 uniform per element against float32 p, float64 against
    float64 p, in p's element order."""
    p = np.ascontiguousarray(p)
    if p.size and not bool(np.all((p >= 0) & (p <= 1))):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    if p.dtype == np.float64:
        u = unit64(gen, p.size)
    else:
        u = unit32(gen, p.size)
        p = p.astype(np.float32)
    return u.reshape(p.shape) < p


def exponential(
    gen: Generator, shape: tuple[int, ...], np_dtype: Any, lambd: float = 1.0
) -> np.ndarray:
    """Tensor.exponential_(lambd): `-1/lambd * log1p(-u)` in float64 for every dtype."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    u = unit64(gen, math.prod(shape))
    return ((-1.0 / lambd) * libm.log1p(-u)).reshape(shape).astype(np_dtype)


def multinomial(
    gen: Generator, probs: np.ndarray, num_samples: int, replacement: bool
) -> np.ndarray:
    """torch.multinomial on a 1-D or 2-D weight array (rows are distributions).

    One sample, or any number without replacement, is argmax/top-k of `p / q` with q an
    exponential(1) draw of p's shape (the Gumbel trick); with replacement, each row's float
    cumulative sum is normalised and searched with one float64 uniform per sample."""
    p = np.asarray(probs)
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    cats = p.shape[-1]
    if not replacement and num_samples > cats:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if cats > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = p.reshape(-1, cats)
    if np.any(rows < 0):
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if not np.all(np.isfinite(rows)):
        raise RuntimeError(
            "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
        )
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement or num_samples == 1:
        q = exponential(gen, rows.shape, rows.dtype, 1.0)
        score = rows / q
        # NOTE: stable sort of the negated scores: ties go to the lower index, as argmax does
        out = np.argsort(-score, axis=1, kind="stable")[:, :num_samples]
    else:
        cum = np.cumsum(rows, axis=1, dtype=rows.dtype)  # sequential, in the weights' dtype
        cum = cum / cum[:, -1:]
        cum[:, -1] = 1
        out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for i, row in enumerate(cum.astype(np.float64)):
            out[i] = np.searchsorted(row, unit64(gen, num_samples), side="left")
    return out.astype(np.int64).reshape(p.shape[:-1] + (num_samples,))


# ------------------------------------------------------------------------------------------
# Cauchy, log-normal, geometric (torch's CPU kernels: one float64 uniform or normal per value)
# ------------------------------------------------------------------------------------------
def cauchy(
    gen: Generator, shape: tuple[int, ...], np_dtype: Any, median: float, sigma: float
) -> np.ndarray:
    """Tensor.cauchy_: `median + sigma * tan(pi * (u - 0.5))` in float64."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    u = unit64(gen, math.prod(shape))
    return (median + sigma * libm.tan(np.pi * (u - 0.5))).reshape(shape).astype(np_dtype)


def log_normal(
    gen: Generator, shape: tuple[int, ...], np_dtype: Any, mean: float, std: float
) -> np.ndarray:
    """Tensor.log_normal_: exp of at::normal_distribution<double> (cached Box-Muller)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    n = math.prod(shape)
    return libm.exp(_scalar_normals(gen, n, mean, std)).reshape(shape).astype(np_dtype)


def geometric(gen: Generator, shape: tuple[int, ...], np_dtype: Any, p: float) -> np.ndarray:
    """Tensor.geometric_: the number of Bernoulli(p) trials to the first success,
    `ceil(log(u) / log1p(-p))`, in float64 for every dtype."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    u = unit64(gen, math.prod(shape))
    with np.errstate(divide="ignore"):
        return np.ceil(libm.log(u) / libm.log1p(-p)).reshape(shape).astype(np_dtype)
