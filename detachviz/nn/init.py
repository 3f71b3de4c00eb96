"""torch.nn.init: every in-place initialiser torch 2.13 has, drawing the same random numbers in
the same order as torch's (so a seeded script initialises bit for bit alike), and the
deprecated spellings without the underscore (a FutureWarning, then the same call)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz import torch as T

Tensor = Any

# nonlinearity -> gain, as torch.nn.init.calculate_gain (leaky_relu depends on its slope)
_GAINS = {
    "linear": 1.0,
    "conv1d": 1.0,
    "conv2d": 1.0,
    "conv3d": 1.0,
    "conv_transpose1d": 1.0,
    "conv_transpose2d": 1.0,
    "conv_transpose3d": 1.0,
    "sigmoid": 1.0,
    "tanh": 5.0 / 3,
    "relu": math.sqrt(2.0),
    "selu": 3.0 / 4,
}


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (torch's table; leaky_relu from its slope)."""
    if nonlinearity == "leaky_relu":
        if param is None:
            slope: float = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    try:
        return _GAINS[nonlinearity]
    except KeyError:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}") from None


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for d in tensor.shape[2:]:
        receptive *= d
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    # NOTE: no_grad, as torch's initialisers: an in-place write into a leaf that requires grad
    with T.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    with T.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with T.no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    with T.no_grad():
        return tensor.zero_()


def ones_(tensor: Tensor) -> Tensor:
    with T.no_grad():
        return tensor.fill_(1.0)


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _empty(tensor: Tensor) -> bool:
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


# NOTE: the bounds below are computed in torch's order (std first, then sqrt(3) * std): a
# different order can change the last bit of the float64 bound and so the float32 draws.
def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan). Linear's a=sqrt(5) makes it
    U(-1/sqrt(in_features), 1/sqrt(in_features))."""
    if _empty(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    if _empty(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """N(mean, std^2) restricted to [a, b] by rejection, as torch 2.13 draws it: for a wide
    window (mass > 0.3) whole fresh normal tensors replace the rejected entries; for a narrow
    one uniform candidates in [a, b] are accepted against the normal density."""

    def cdf(v: float) -> float:
        return (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    with T.no_grad():
        mass = cdf((b - mean) / std) - cdf((a - mean) / std)
        if mass > 0.3:
            # NOTE: the bounds in the tensor's dtype, so the mask agrees with its values
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                fresh = T.empty_like(result).normal_(mean, std, generator=generator)
                result = T.where(mask, fresh, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = T.empty_like(tensor)
        accept = T.empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = accept.uniform_(generator=generator).log_().gt(candidates)
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = T.where(pending, candidates, result)
                candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                redraw = accept.uniform_(generator=generator).log_().gt(candidates)
                pending = T.where(pending, redraw, pending)
                if not pending.any():
                    break
            tensor.copy_(result)
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR of a N(0, 1) draw, signs fixed by diag(R), as
    torch. The QR is torch's own (MKL's geqrf/orgqr, bit-identical) with the `exact` extra,
    else numpy's LAPACK: the normal draw is bit-identical, Q agrees to float32 rounding."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator).numpy()
    if rows < cols:
        flat = flat.T
    q, r = _qr(flat)
    q = q * np.sign(np.diag(r)).astype(q.dtype)
    if rows < cols:
        q = q.T
    with T.no_grad():
        tensor.copy_(T.from_numpy(np.ascontiguousarray(q)).view_as(tensor))
        tensor.mul_(gain)
    return tensor


def _qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from detachviz.engine import mkl

    if a.dtype in (np.float32, np.float64) and mkl.lapack_available():
        return mkl.qr(a)
    return np.linalg.qr(a)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (2-D only)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with T.no_grad():
        tensor.copy_(T.eye(*tuple(tensor.shape), dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The Dirac delta of a {3, 4, 5}-D convolution weight: each group keeps as many input
    channels as it can, a 1 at the kernel's centre."""
    nd = tensor.dim()
    if nd not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    min_dim = min(per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with T.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * per_group + d, d, *centre)] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """N(0, std^2) with ceil(sparsity * rows) entries of each column zeroed; the rows come from
    a randperm of the default generator per column (torch's order, its generator too)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = math.ceil(sparsity * rows)
    with T.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = T.randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _deprecated(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    new, old = fn.__name__, fn.__name__[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.",
            FutureWarning,
            stacklevel=2,
        )
        return fn(*args, **kwargs)

    deprecated_init.__name__ = old
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
