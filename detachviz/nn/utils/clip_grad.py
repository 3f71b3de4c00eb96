"""clip_grad_norm_ and clip_grad_value_, as torch 2.13 computes them on CPU: one norm per
gradient, the norm of those norms, then every gradient scaled in place by
clamp(max_norm / (total + 1e-6), max=1) — also when no clipping is needed (a multiply by 1)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from detachviz import torch as T

Tensor = Any


def _as_list(parameters: Any) -> list[Tensor]:
    return [parameters] if isinstance(parameters, T.Tensor) else list(parameters)


def _refuse_foreach(foreach: Any, name: str) -> None:
    if foreach:
        raise NotImplementedError(
            f"torch.nn.utils.{name}(foreach=True) is not supported by detachviz"
        )


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients in place so their total norm is at most max_norm; return the
    total norm (before clipping) as a 0-dim tensor."""
    _refuse_foreach(foreach, "clip_grad_norm_")
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    norm_type = float(norm_type)
    with T.no_grad():
        if not grads:
            return T.tensor(0.0)
        norms = [g.norm(norm_type) for g in grads]
        total = T.stack(norms).norm(norm_type)
        if error_if_nonfinite and (total.isnan() | total.isinf()).item():
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
        coef = T.clamp(float(max_norm) / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_norm(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The deprecated spelling of clip_grad_norm_."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    _refuse_foreach(foreach, "clip_grad_value_")
    clip_value = float(clip_value)
    with T.no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
