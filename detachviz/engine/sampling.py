"""The random numbers a script sees: torch.Generator and the default generator, the seeding
functions, the random factories (rand, randn, randint, randperm, normal, bernoulli,
multinomial, *_like) and the in-place fills (uniform_, normal_, random_, bernoulli_,
exponential_), all drawing from engine.random so they give torch's numbers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import random as rnd
from detachviz.engine import state
from detachviz.engine.device import device, place
from detachviz.engine.factory import leaf, sizes
from detachviz.engine.function import inplace
from detachviz.engine.node import node_class
from detachviz.engine.tensor import Tensor, wrap


class Generator(rnd.Generator):
    """torch.Generator: engine.random's generator with torch's Tensor-facing state methods."""

    def __init__(self, device: Any = "cpu") -> None:
        super().__init__()

    @property
    def device(self) -> device:
        return device("cpu")

    def get_state(self) -> Tensor:  # type: ignore[override]
        return wrap(rnd.Generator.get_state(self), dtypes.uint8)

    def set_state(self, new_state: Any) -> Generator:  # type: ignore[override]
        if not isinstance(new_state, Tensor) or new_state._dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        rnd.Generator.set_state(self, new_state._data)
        return self


# torch.default_generator, process-wide state (engine/state.py; one object for the process's
# life). NOTE: torch seeds it from the OS at process start; detachviz seeds it with 0 (and
# state.reset() re-seeds it before each script), so unseeded runs repeat.
state.default_generator = Generator()
state.default_generator.manual_seed(0)


def _gen(generator: Any) -> rnd.Generator:
    if generator is None:
        return state.default_generator
    if not isinstance(generator, rnd.Generator):
        raise TypeError(
            f"expected a torch.Generator for 'generator', but got {type(generator).__name__}"
        )
    return generator


# -- seeding (torch.manual_seed & co) -----------------------------------------------------
def manual_seed(seed: Any) -> Generator:
    """torch.manual_seed: reseed the default generator; returns it."""
    if not isinstance(seed, (int, np.integer, float, Tensor)) or isinstance(seed, bool):
        raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    try:
        state.default_generator.manual_seed(int(seed))
    except RuntimeError as e:
        raise ValueError(str(e)) from None
    return state.default_generator


def seed() -> int:
    return state.default_generator.seed()


def initial_seed() -> int:
    return state.default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return state.default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    state.default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices: Any = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str = "cuda",
) -> Iterator[None]:
    """torch.random.fork_rng: run the block on a copy of the CPU generator's state, restored
    when it ends (there are no other devices here, so `devices` has nothing to fork)."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)


# -- helpers ------------------------------------------------------------------------------
def _float_dtype(dtype: dtypes.dtype | None, kernel: str) -> dtypes.dtype:
    dt = dtype or state.default_dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for {_ctype(dt)!r}')
    return dt


def _ctype(dt: dtypes.dtype) -> str:
    return dt.legacy.removesuffix("Tensor")


def _memory_order(shape: tuple[int, ...], strides: tuple[int, ...], draw: Any) -> np.ndarray:
    """Values for an array of `shape`/`strides` drawn in memory order, as torch's
    TensorIterator walks a tensor (a transposed view fills its storage front to back)."""
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    vals = draw(tuple(shape[d] for d in order))
    return np.transpose(vals, np.argsort(order)) if order != list(range(len(shape))) else vals


def _fill(x: Tensor, name: str, cls: Any, draw: Any) -> Tensor:
    """Write `draw(shape)` into x in place (no gradient flows through random values)."""
    d = x._data
    return inplace(x, name, cls, lambda a: _memory_order(d.shape, d.strides, draw))


# Backward names of the in-place fills: the gradient through random values is zero, and so is
# the forward-mode tangent (torch: `result: self_t.zero_()`), hence the `None` JVP rules.
_ZERO_GRAD = (lambda k, g, s, a: k.zeros_like(g),)
UNIFORM = node_class("UniformBackward0", _ZERO_GRAD, jvp=(None,))
NORMAL = node_class("NormalBackward0", _ZERO_GRAD, jvp=(None,))
EXPONENTIAL = node_class("ExponentialBackward0", _ZERO_GRAD, jvp=(None,))
RANDOM_FROM_TO = node_class("RandomBackward0", _ZERO_GRAD, jvp=(None,))
RANDOM_TO = node_class("RandomBackward1", _ZERO_GRAD, jvp=(None,))
RANDOM = node_class("RandomBackward2", _ZERO_GRAD, jvp=(None,))
BERNOULLI_TENSOR = node_class("BernoulliBackward1", (*_ZERO_GRAD, None), jvp=(None, None))
BERNOULLI_FLOAT = node_class("BernoulliBackward2", _ZERO_GRAD, jvp=(None,))


# -- in-place fills (Tensor methods) ------------------------------------------------------
def uniform_(x: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Tensor:
    _float_dtype(x._dtype, "check_uniform_bounds")
    g = _gen(generator)
    return _fill(x, "uniform_", UNIFORM, lambda s: rnd.uniform(g, s, x._data.dtype, from_, to))


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    _float_dtype(x._dtype, "normal_kernel_cpu")
    g = _gen(generator)
    dense = x._data.flags.c_contiguous
    return _fill(x, "normal_", NORMAL, lambda s: rnd.normal(g, s, x._data.dtype, mean, std, dense))


def exponential_(x: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    if not x._dtype.is_floating_point:
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be "
            f"a floating point but you specified {_ctype(x._dtype)}"
        )
    g = _gen(generator)
    return _fill(
        x, "exponential_", EXPONENTIAL, lambda s: rnd.exponential(g, s, x._data.dtype, lambd)
    )


def _top(dt: dtypes.dtype) -> int:
    """One past the largest value random_(from) may return for dt."""
    if dt.is_floating_point:
        return 2 ** (np.finfo(dt.np).nmant + 1) + 1
    if dt is dtypes.bool_:
        return 2
    return int(np.iinfo(dt.np.name).max) + 1


_UNSET: Any = object()  # random_(5) means to=5; random_(5, None) means from=5 up to the top


def random_(x: Tensor, from_: Any = _UNSET, to: Any = _UNSET, *, generator: Any = None) -> Tensor:
    """random_(), random_(to) and random_(from, to), each with its own backward name."""
    g = _gen(generator)
    npd = x._data.dtype
    if from_ is _UNSET:
        return _fill(x, "random_", RANDOM, lambda s: rnd.random_bits(g, s, npd))
    if to is _UNSET:
        lo, hi, cls = 0, int(from_), RANDOM_TO
    else:
        lo, cls = int(from_), RANDOM_FROM_TO
        hi = _top(x._dtype) if to is None else int(to)
    return _fill(x, "random_", cls, lambda s: rnd.random_int(g, s, npd, lo, hi))


def bernoulli_(x: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    g = _gen(generator)
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, x._data.shape)
        return inplace(
            x,
            "bernoulli_",
            BERNOULLI_TENSOR,
            lambda a: rnd.bernoulli_tensor(g, probs),
            (p,),
        )
    return _fill(x, "bernoulli_", BERNOULLI_FLOAT, lambda s: rnd.bernoulli_scalar(g, s, float(p)))


# -- factories ----------------------------------------------------------------------------
def _random_factory(kernel: str, draw: Any) -> Any:
    def make(
        *size: Any,
        generator: Any = None,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        out: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        place(device)
        dt = _float_dtype(dtype, kernel)
        shape = sizes(size)
        return leaf(draw(_gen(generator), shape, dt.np), dt, requires_grad)

    return make


rand = _random_factory("check_uniform_bounds", rnd.uniform)
randn = _random_factory("normal_kernel_cpu", rnd.normal)


def randint(
    low: int,
    high: Any = None,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    out: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """torch.randint(high, size) or randint(low, high, size)."""
    place(device)
    if size is None:
        low, high, size = 0, low, high
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            "randint(): argument 'size' (position 2) must be tuple of ints, not "
            f"{type(size).__name__}"
        )
    dt = dtype or dtypes.int64
    data = rnd.random_int(_gen(generator), sizes((size,)), dt.np, int(low), int(high))
    return leaf(data, dt, requires_grad)


def randperm(
    n: int,
    *,
    generator: Any = None,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    out: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    place(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = dtype or dtypes.int64
    return leaf(rnd.randperm(_gen(generator), int(n)).astype(dt.np), dt, requires_grad)


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    out: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """torch.normal's overloads: (float, float, size), and tensor mean and/or std, which draw
    standard normals of the broadcast shape and then scale (`* std`) and shift (`+ mean`) in
    the tensor's dtype, as torch's normal_out does. The result carries no gradient."""
    place(device)
    g = _gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        dt = _float_dtype(dtype, "normal_kernel_cpu")
        shape = sizes((size,)) if size is not None else ()
        return leaf(rnd.normal(g, shape, dt.np, float(mean), float(std)), dt, requires_grad)
    if st and bool(np.any(std._data < 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    # NOTE: a python float scales and shifts in the tensor's dtype (numpy treats it as weak)
    m = mean._data if mt else float(mean)
    s = std._data if st else float(std)
    dt = mean._dtype if mt else std._dtype
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    if mt and not st:
        out = rnd.normal(g, shape, dt.np, 0.0, float(std)) + m
    else:
        out = rnd.normal(g, shape, dt.np) * s + m
    return leaf(np.asarray(out, dtype=dt.np), dt, False)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:  # noqa: A002
    """torch.bernoulli(probs) draws against each element; bernoulli(x, p) against p."""
    g = _gen(generator)
    if p is None:
        data = rnd.bernoulli_tensor(g, input._data)
    else:
        d = input._data
        data = _memory_order(d.shape, d.strides, lambda s: rnd.bernoulli_scalar(g, s, float(p)))
    return leaf(data.astype(input._data.dtype), input._dtype, False)


def multinomial(
    input: Tensor,  # noqa: A002
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Any = None,
    out: Any = None,
) -> Tensor:
    data = rnd.multinomial(_gen(generator), input._data, int(num_samples), bool(replacement))
    return leaf(data, dtypes.int64, False)


def _like(kernel: str, draw: Any) -> Any:
    def make(
        x: Tensor,
        *,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: bool = False,
        memory_format: Any = None,
        layout: Any = None,
        generator: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        place(device)
        dt = _float_dtype(dtype or x._dtype, kernel)
        return leaf(draw(_gen(generator), x._data.shape, dt.np), dt, requires_grad)

    return make


rand_like = _like("check_uniform_bounds", rnd.uniform)
randn_like = _like("normal_kernel_cpu", rnd.normal)


def randint_like(
    x: Tensor,
    low: int = 0,
    high: Any = None,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
    generator: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    place(device)
    if high is None:
        low, high = 0, low
    dt = dtype or x._dtype
    data = rnd.random_int(_gen(generator), x._data.shape, dt.np, int(low), int(high))
    return leaf(data, dt, requires_grad)


# cauchy_, log_normal_, geometric_ (random.py's draws; in place, a zero gradient as torch's)
CAUCHY = node_class("CauchyBackward0", _ZERO_GRAD, jvp=(None,))
LOG_NORMAL = node_class("LogNormalBackward0", _ZERO_GRAD, jvp=(None,))
GEOMETRIC = node_class("GeometricBackward0", _ZERO_GRAD, jvp=(None,))
_C_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool"}  # fmt: skip


def _continuous(x: Tensor, kind: str) -> None:
    if not x._dtype.is_floating_point:
        raise RuntimeError(
            f"{kind} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_C_NAMES.get(x._dtype.name, x._dtype.name)}"
        )


def cauchy_(x: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    _continuous(x, "Cauchy")
    g = _gen(generator)
    dt = x._data.dtype
    return _fill(x, "cauchy_", CAUCHY, lambda s: rnd.cauchy(g, s, dt, median, sigma))


def log_normal_(x: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"\"log_normal_cpu\" not implemented for '{_ctype(x._dtype)}'")
    g = _gen(generator)
    dt = x._data.dtype
    return _fill(x, "log_normal_", LOG_NORMAL, lambda s: rnd.log_normal(g, s, dt, mean, std))


def geometric_(x: Tensor, p: float, *, generator: Any = None) -> Tensor:
    g = _gen(generator)
    dt = x._data.dtype
    return _fill(x, "geometric_", GEOMETRIC, lambda s: rnd.geometric(g, s, dt, p))
