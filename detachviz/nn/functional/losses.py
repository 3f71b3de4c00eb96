"""torch.nn.functional's robust, divergence and distance losses (smooth_l1 .. triplet_margin)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.engine.ops import arith
from detachviz.engine.ops import loss as fused
from detachviz.nn.functional.core import (
    broadcast_pair,
    reduce_loss,
    reduction_enum,
    size_warning,
    weighted_reduce,
)
from detachviz.nn.reduction import legacy_reduction

Tensor = Any

# ---------------------------------------------------------------- robust, divergence, distance
# (smooth_l1_loss .. cosine_embedding_loss): torch's fused ops where torch has one
# (SmoothL1LossBackward0, HuberLossBackward0, SoftMarginLossBackward0), otherwise the same
# composite of ops torch's Python or C++ function builds, so the graphs carry torch's names.


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Squared below beta, linear above: SmoothL1LossBackward0 (beta=0 is l1_loss, as torch)."""
    size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = reduction_enum(reduction)
    x, t = broadcast_pair(input, target)
    if beta == 0.0:
        return reduce_loss((x - t).abs(), reduction)
    return fused.smooth_l1_loss(x, t, enum, beta)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """0.5 d^2 below delta, delta (|d| - delta/2) above: HuberLossBackward0."""
    size_warning(input, target)
    x, t = broadcast_pair(input, target)
    if weight is None:
        return fused.huber_loss(x, t, reduction_enum(reduction), delta)
    errors = fused.huber_loss(x, t, 0, delta)
    return weighted_reduce(errors, weight, input, reduction, by_weight=False)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + exp(-y x)): SoftMarginLossBackward0 (the target is not differentiable)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    return fused.soft_margin_loss(input, target, reduction_enum(reduction))


_KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release."
)


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """KL(target || exp(input)) pointwise, as torch's composite: target * (log target - input)
    (xlogy(t, t) - t * input), or exp(t) * (t - input) with log_target; 'batchmean' is the sum
    over the batch size."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(_KL_MEAN_WARNING, UserWarning, stacklevel=2)
    inner = "sum" if reduction == "batchmean" else reduction
    reduction_enum(inner)
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        if target.requires_grad and T.is_grad_enabled():
            raise NotImplementedError(
                "kl_div with a target that requires grad (log_target=False) is not supported "
                "by detachviz: detach the target"
            )
        t = np.asarray(target.tolist(), dtype=target.dtype.np)
        with np.errstate(divide="ignore", invalid="ignore"):
            xlogy = np.where(t == 0, 0, t * np.log(np.where(t == 0, 1, t)))
        pointwise = T.tensor(xlogy, dtype=target.dtype) - target * input
    out = reduce_loss(pointwise, inner)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """input / max(||input||_p over dim, eps): DivBackward0 over ExpandBackward0, ClampMin,
    LinalgVectorNorm, as torch builds it."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported by detachviz")
    denom = fused.clamp_min(input.norm(p, dim, keepdim=True), eps).expand_as(input)
    return input / denom


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum((x1 / ||x1||) * (x2 / ||x2||)) over dim, each norm cloned and clamped at eps
    without history, as torch's at::cosine_similarity."""
    a, b = broadcast_pair(x1, x2)

    def unit(v: Tensor) -> Tensor:
        n = v.norm(2, dim, keepdim=True).clone()
        with T.no_grad():
            n.clamp_(min=eps)
        return v / n

    return (unit(a) * unit(b)).sum(dim)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim (torch's at::pairwise_distance: NormBackward1)."""
    diff = arith.add_scalar(x1 - x2, eps)
    return fused.norm_p_dim(diff, p, diff.dim() - 1, keepdim)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -y (x1 - x2) + margin), reduced."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    reduction_enum(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    loss = fused.clamp_min(arith.add_scalar(-target * (input1 - input2), margin), 0)
    return reduce_loss(loss, reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-06,
    swap: bool = False,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with pairwise distances (the smaller of d(a, n)
    and d(p, n) with swap)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    reduction_enum(reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = T.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return reduce_loss(fused.clamp_min(arith.add_scalar(d_pos, margin) - d_neg, 0), reduction)
