"""torch.nn.functional: linear, activations, softmax family and losses, on the public torch API.

Each function calls the engine op torch itself dispatches to (`torch.addmm`,
`Tensor.log_softmax`, `torch._C._nn.mse_loss`, ...), so grad_fn names match torch's
(`AddmmBackward0`, `LogSoftmaxBackward0`, `MseLossBackward0`); where torch's own function is a
composite (cross_entropy, l1_loss, a weighted mse_loss), so is ours.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.engine.ops import activation as act
from detachviz.engine.ops import loss as fused

Tensor = Any  # annotation alias: the engine's Tensor, as the torch namespace exposes it

# torch's reduction enum, as torch._C._nn ops take it (torch/nn/_reduction.py)
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction: str) -> int:
    try:
        return _REDUCTION[reduction]
    except KeyError:
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    _reduction_enum(reduction)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ---------------------------------------------------------------- linear


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x W^T + b, built as torch 2.13 builds it (at::linear): a 2-D input with bias is one
    `addmm(b, x, W.t())` (AddmmBackward0 over TBackward0); any other rank with bias is flattened
    to 2-D, addmm'd and viewed back (ViewBackward0 around it); without bias it is `matmul`."""
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return T.addmm(bias, input, weight.t())
    # NOTE: torch 2.13 routes 1-D and N-D inputs through _flatten_nd_linear / a 2-D view as well
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
    """Mean (or sum, or none) of (input - target)^2. torch's grad_fn is MseLossBackward0."""
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
    enum = _reduction_enum(reduction)
    if weight is None:
        return fused.mse_loss(input, target, enum)
    diff = input - target
    return _reduce(diff * diff * weight, reduction)  # torch: a composite when weighted


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Mean (or sum, or none) of |input - target|. NOTE: torch's at::l1_loss is a composite
    (sub, abs, then the reduction), so its grad_fn is MeanBackward0 / SumBackward0."""
    return _reduce((input - target).abs(), reduction)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-w (t log x + (1 - t) log(1 - x)); torch's grad_fn is BinaryCrossEntropyBackward0."""
    enum = _reduction_enum(reduction)
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
    enum = _reduction_enum(reduction)
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
    enum = _reduction_enum(reduction)
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
    _reduction_enum(reduction)
    cdim = _class_dim(input)
    n_classes = input.shape[cdim]
    logp = log_softmax(input, cdim)
    if target.dtype.is_floating_point:  # probabilities, same shape as input
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        per_class = logp * target
        if weight is not None:
            per_class = per_class * _class_view(weight, input)
        loss = -per_class.sum(cdim)
        if reduction == "mean":
            # NOTE: soft targets average over the batch elements, not over weights
            return loss.sum() / float(max(1, loss.numel()))
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    # smoothing: (1 - eps) * nll + eps/C * sum_c -logp[c] (weighted, ignored targets masked)
    t = np.asarray(target.tolist(), dtype=np.int64)
    keep = np.expand_dims((t != ignore_index).astype(np.float64), cdim)
    per_class = logp * T.tensor(keep, dtype=input.dtype)
    if weight is not None:
        per_class = per_class * _class_view(weight, input)
    smooth = -per_class.sum(cdim)
    if reduction == "mean":
        if weight is None:
            denom = float(keep.sum())
        else:
            w = np.asarray(weight.tolist(), dtype=np.float64)
            denom = float(
                np.where(t != ignore_index, w[np.where(t == ignore_index, 0, t)], 0).sum()
            )
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


def _class_view(weight: Tensor, input: Tensor) -> Tensor:
    """weight (C,) shaped to broadcast along input's class dim."""
    if input.dim() == 1:
        return weight
    return weight.reshape(1, -1, *([1] * (input.dim() - 2)))


# ---------------------------------------------------------------- convolution, pooling,
# normalisation, padding, embedding (engine/ops/conv.py, pool.py, norm.py, pad.py,
# embedding.py): torch's own python wrappers, over the engine ops torch dispatches to

from detachviz.engine.ops import conv as _conv  # noqa: E402
from detachviz.engine.ops import embedding as _emb  # noqa: E402
from detachviz.engine.ops import norm as _norm  # noqa: E402
from detachviz.engine.ops import pad as _pad  # noqa: E402
from detachviz.engine.ops import pool as _pool  # noqa: E402

conv1d = _conv.conv1d
conv2d = _conv.conv2d
conv3d = _conv.conv3d
conv_transpose1d = _conv.conv_transpose1d
conv_transpose2d = _conv.conv_transpose2d
max_pool1d = _pool.max_pool1d
max_pool2d = _pool.max_pool2d
avg_pool1d = _pool.avg_pool1d
avg_pool2d = _pool.avg_pool2d
adaptive_avg_pool1d = _pool.adaptive_avg_pool1d
adaptive_avg_pool2d = _pool.adaptive_avg_pool2d
adaptive_max_pool1d = _pool.adaptive_max_pool1d
adaptive_max_pool2d = _pool.adaptive_max_pool2d
pad = _pad.pad
one_hot = _emb.one_hot


def max_pool2d_with_indices(
    input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False, return_indices: bool = True,
) -> Any:  # fmt: skip
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _verify_batch_size(size: Any) -> None:
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """torch.nn.functional.batch_norm (NativeBatchNormBackward0)."""
    if training:
        _verify_batch_size(input.size())
    return _norm.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                            eps)  # fmt: skip


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """torch.nn.functional.group_norm (NativeGroupNormBackward0)."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    size = list(input.size())
    _verify_batch_size(T.Size([size[0] * size[1] // num_groups, num_groups, *size[2:]]))
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """torch.nn.functional.embedding: padding_idx normalised as torch's (negative counts from
    the end, None is -1); max_norm renormalises the looked-up rows in place first."""
    num = weight.size(0)
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -num:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = num + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        _emb.embedding_renorm_(weight, input, max_norm, norm_type)
    return _emb.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
