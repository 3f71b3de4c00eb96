"""torch.nn.init: the in-place initialisers Linear uses (and the common ones scripts call)."""

from __future__ import annotations

import math
from typing import Any

from detachviz import torch as T

Tensor = Any

# nonlinearity -> gain, as torch.nn.init.calculate_gain (leaky_relu depends on its slope)
_GAINS = {
    "linear": 1.0,
    "conv1d": 1.0,
    "conv2d": 1.0,
    "conv3d": 1.0,
    "sigmoid": 1.0,
    "tanh": 5.0 / 3,
    "relu": math.sqrt(2.0),
    "selu": 3.0 / 4,
}


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
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
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


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
