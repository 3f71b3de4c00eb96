"""torch.nn.functional's core: linear, activations, softmax family, dropout and the classic
losses (see the package docstring)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.engine.dtype import SCALAR_NAMES
from detachviz.engine.ops import activation as act
from detachviz.engine.ops import arith
from detachviz.engine.ops import loss as fused
from detachviz.nn.reduction import legacy_reduction

Tensor = Any  # annotation alias: the engine's Tensor, as the torch namespace exposes it

# torch's reduction enum, as torch._C._nn ops take it (torch/nn/_reduction.py)
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def reduction_enum(reduction: str) -> int:
    try:
        return _REDUCTION[reduction]
    except KeyError:
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    reduction_enum(reduction)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def size_warning(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """torch.broadcast_tensors for two: each operand expanded only if its shape changes."""
    shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    a = a if tuple(a.shape) == shape else a.expand(*shape)
    b = b if tuple(b.shape) == shape else b.expand(*shape)
    return a, b


def weighted_reduce(
    errors: Tensor, weight: Tensor, input: Tensor, reduction: str, by_weight: bool
) -> Tensor:
    """torch's weighted pointwise losses: errors * weight, then 'sum', 'none', or 'mean' =
    sum / sum(weight) (mse, l1) or the plain mean (huber)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = errors * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return T.sum(loss)
    if reduction == "mean":
        return T.sum(loss) / T.sum(weight) if by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---------------------------------------------------------------- linear


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x W^T + b, built as torch 2.13 builds it (at::linear): a 2-D input with bias is one
    `addmm(b, x, W.t())` (AddmmBackward0 over TBackward0); any other rank with bias is flattened
    to 2-D, addmm'd and viewed back (ViewBackward0 around it); without bias it is `matmul`."""
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return T.addmm(bias, input, weight.t())
    # NOTE: torch 2.13 routes contiguous 1-D and N-D inputs through _flatten_nd_linear (a 2-D
    # view, addmm, a view back); a non-contiguous one (batch_first RNNs) is matmul(x, W.t()) + b
    if not input.is_contiguous():
        return input.matmul(weight.t()) + bias
    batch = tuple(input.shape[:-1])
    out = T.addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
    return out.view(*batch, weight.shape[0])


# ---------------------------------------------------------------- activations


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else T.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    return T.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return T.tanh(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return act.leaky_relu_(input, negative_slope)
    return act.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return act.leaky_relu_(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return act.elu_(input, alpha) if inplace else act.elu(input, alpha)


# NOTE: the builtins (softplus, elu_, hardtanh_) take torch's native integer defaults, which
# their nodes' `_saved_*` show: F.softplus(x).grad_fn._saved_beta is 1, not 1.0
def elu_(input: Tensor, alpha: float = 1) -> Tensor:
    return act.elu_(input, alpha)


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    return act.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return act.silu_(input) if inplace else act.silu(input)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    return act.softplus(input, beta, threshold)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    if inplace:
        return act.hardtanh_(input, min_val, max_val)
    return act.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1, max_val: float = 1) -> Tensor:
    return act.hardtanh_(input, min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    # torch's relu6 is hardtanh(0, 6): its node is HardtanhBackward0 with those bounds
    return hardtanh(input, 0, 6, inplace)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return input.softmax(dim)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return input.log_softmax(dim)


def check_dropout_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """torch's at::dropout on CPU: the input itself when p == 0, not training or empty;
    otherwise input * mask (MulBackward0), mask = bernoulli(1 - p) / (1 - p) (zeros for p=1).
    NOTE: the mask is a constant made from random numbers, so no graph edge leads to it."""
    check_dropout_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = T.zeros((), dtype=input.dtype)
    else:
        # NOTE: torch's order: a bernoulli_(1 - p) mask in the input's dtype, then div_(1 - p)
        noise = T.empty_like(input).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


# ---------------------------------------------------------------- losses


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean (or sum, or none) of (input - target)^2. torch's grad_fn is MseLossBackward0;
    weighted, torch's composite whose 'mean' divides by the summed weights."""
    size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = broadcast_pair(input, target)
    if weight is None:
        return fused.mse_loss(x, t, reduction_enum(reduction))
    return weighted_reduce((x - t).pow(2), weight, input, reduction, by_weight=True)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean (or sum, or none) of |input - target|. NOTE: torch's at::l1_loss is a composite
    (sub, abs, then the reduction), so its grad_fn is MeanBackward0 / SumBackward0."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    size_warning(input, target)
    x, t = broadcast_pair(input, target)
    if weight is None:
        return reduce_loss((x - t).abs(), reduction)
    return weighted_reduce((x - t).abs(), weight, input, reduction, by_weight=True)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-w (t log x + (1 - t) log(1 - x)); torch's grad_fn is BinaryCrossEntropyBackward0."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = reduction_enum(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(*np.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    return fused.binary_cross_entropy(input, target, weight, enum)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """BCE on sigmoid(input), computed stably; BinaryCrossEntropyWithLogitsBackward0."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = reduction_enum(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    return T.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)


def _class_dim(input: Tensor) -> int:
    return 0 if input.dim() == 1 else 1


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-input[n, target[n]], weighted, ignoring ignore_index; torch's grad_fn is NllLossBackward0.
    NOTE: 'mean' divides by the summed weights of the non-ignored targets, as torch does."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = reduction_enum(reduction)
    n_classes = input.shape[_class_dim(input)] if input.dim() else 0
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(
            f"expected scalar type {SCALAR_NAMES[input.dtype.name]} but found "
            f"{SCALAR_NAMES[weight.dtype.name]}"
        )
    return fused.nll_loss_nd(input, target, weight, enum, ignore_index)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax over the class dim, then nll_loss (class-index targets) or the soft-label
    sum (probability targets), with torch's label smoothing."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    reduction_enum(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {float(label_smoothing):g}"
        )
    if target.dtype.is_floating_point and ignore_index != -100:
        raise RuntimeError("ignore_index is not supported for floating point target")
    cdim = _class_dim(input)
    n_classes = input.shape[cdim]
    logp = log_softmax(input, cdim)
    if target.dtype.is_floating_point:  # probabilities, same shape as input
        return _cross_entropy_soft(logp, target, weight, reduction, label_smoothing)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    # torch's smoothing term: -sum_c logp[c] (* weight[c]) per element, zeroed in place where
    # the target is ignored, reduced ('mean' divides by the count or the summed weights of
    # the kept targets), then mixed in with two mul.Scalar nodes (MulBackward1)
    per_class = logp if weight is None else logp * _class_view(weight, input)
    smooth = -per_class.sum(cdim)
    t = np.asarray(target.tolist(), dtype=np.int64)
    ignored = t == ignore_index
    smooth.masked_fill_(T.tensor(ignored), 0.0)
    if reduction == "mean":
        if weight is None:
            denom = T.tensor(int((~ignored).sum()))
        else:
            w = np.asarray(weight.tolist(), dtype=weight.dtype.np)
            denom = T.tensor(w[t[~ignored]].sum(), dtype=weight.dtype)
        smooth = smooth.sum() / denom
    else:
        smooth = reduce_loss(smooth, reduction)
    kept = arith.mul_scalar(nll, 1 - label_smoothing)
    return kept + arith.mul_scalar(smooth, label_smoothing / n_classes)


def _cross_entropy_soft(
    logp: Tensor, target: Tensor, weight: Tensor | None, reduction: str, smoothing: float
) -> Tensor:
    """torch's probability-target cross entropy: -(logp * target [* weight]) summed ('sum'),
    over the class dim ('none') or summed and divided by the batch elements ('mean', as
    div.Scalar: DivBackward1); a smoothed target mixes in the uniform distribution."""
    cdim = _class_dim(logp)
    n_classes = logp.shape[cdim]
    if smoothing > 0:
        target = arith.add_scalar(arith.mul_scalar(target, 1 - smoothing), smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _class_view(weight, logp)
    if reduction == "none":
        return -prod.sum(cdim)
    total = -prod.sum()
    if reduction == "sum":
        return total
    return arith.div_scalar(total, logp.numel() // n_classes)


def _class_view(weight: Tensor, input: Tensor) -> Tensor:
    """weight (C,) shaped to broadcast along input's class dim."""
    if input.dim() == 1:
        return weight
    return weight.reshape(1, -1, *([1] * (input.dim() - 2)))
