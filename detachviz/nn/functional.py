"""torch.nn.functional: linear, activations, softmax family and losses, on the public torch API.

Each function calls the engine op torch itself dispatches to (`torch.addmm`,
`Tensor.log_softmax`, `torch._C._nn.mse_loss`, ...), so grad_fn names match torch's
(`AddmmBackward0`, `LogSoftmaxBackward0`, `MseLossBackward0`); where torch's own function is a
composite (cross_entropy, l1_loss, a weighted mse_loss), so is ours.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.engine.dtype import SCALAR_NAMES
from detachviz.engine.namespace import module_getattr as _refusing_getattr
from detachviz.engine.ops import activation as act
from detachviz.engine.ops import attention as _attention
from detachviz.engine.ops import loss as fused
from detachviz.nn.reduction import legacy_reduction

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
    _size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = _broadcast_pair(input, target)
    if weight is None:
        return fused.mse_loss(x, t, _reduction_enum(reduction))
    return _weighted_reduce((x - t).pow(2), weight, input, reduction, by_weight=True)


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
    _size_warning(input, target)
    x, t = _broadcast_pair(input, target)
    if weight is None:
        return _reduce((x - t).abs(), reduction)
    return _weighted_reduce((x - t).abs(), weight, input, reduction, by_weight=True)


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
    reduction = legacy_reduction(size_average, reduce, reduction)
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
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = _reduction_enum(reduction)
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
    _reduction_enum(reduction)
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
        smooth = _reduce(smooth, reduction)
    kept = fused.mul_scalar(nll, 1 - label_smoothing)
    return kept + fused.mul_scalar(smooth, label_smoothing / n_classes)


def _cross_entropy_soft(
    logp: Tensor, target: Tensor, weight: Tensor | None, reduction: str, smoothing: float
) -> Tensor:
    """torch's probability-target cross entropy: -(logp * target [* weight]) summed ('sum'),
    over the class dim ('none') or summed and divided by the batch elements ('mean', as
    div.Scalar: DivBackward1); a smoothed target mixes in the uniform distribution."""
    cdim = _class_dim(logp)
    n_classes = logp.shape[cdim]
    if smoothing > 0:
        target = fused.add_scalar(fused.mul_scalar(target, 1 - smoothing), smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _class_view(weight, logp)
    if reduction == "none":
        return -prod.sum(cdim)
    total = -prod.sum()
    if reduction == "sum":
        return total
    return fused.div_scalar(total, logp.numel() // n_classes)


def _class_view(weight: Tensor, input: Tensor) -> Tensor:
    """weight (C,) shaped to broadcast along input's class dim."""
    if input.dim() == 1:
        return weight
    return weight.reshape(1, -1, *([1] * (input.dim() - 2)))


# ---------------------------------------------------------------- robust, divergence, distance
# (smooth_l1_loss .. cosine_embedding_loss): torch's fused ops where torch has one
# (SmoothL1LossBackward0, HuberLossBackward0, SoftMarginLossBackward0), otherwise the same
# composite of ops torch's Python or C++ function builds, so the graphs carry torch's names.


def _size_warning(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """torch.broadcast_tensors for two: each operand expanded only if its shape changes."""
    shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    a = a if tuple(a.shape) == shape else a.expand(*shape)
    b = b if tuple(b.shape) == shape else b.expand(*shape)
    return a, b


def _weighted_reduce(
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


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Squared below beta, linear above: SmoothL1LossBackward0 (beta=0 is l1_loss, as torch)."""
    _size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = _reduction_enum(reduction)
    x, t = _broadcast_pair(input, target)
    if beta == 0.0:
        return _reduce((x - t).abs(), reduction)
    return fused.smooth_l1_loss(x, t, enum, beta)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """0.5 d^2 below delta, delta (|d| - delta/2) above: HuberLossBackward0."""
    _size_warning(input, target)
    x, t = _broadcast_pair(input, target)
    if weight is None:
        return fused.huber_loss(x, t, _reduction_enum(reduction), delta)
    errors = fused.huber_loss(x, t, 0, delta)
    return _weighted_reduce(errors, weight, input, reduction, by_weight=False)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + exp(-y x)): SoftMarginLossBackward0 (the target is not differentiable)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    return fused.soft_margin_loss(input, target, _reduction_enum(reduction))


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
    _reduction_enum(inner)
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
    out = _reduce(pointwise, inner)
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
    a, b = _broadcast_pair(x1, x2)

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
    diff = fused.add_scalar(x1 - x2, eps)
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
    _reduction_enum(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    loss = fused.clamp_min(fused.add_scalar(-target * (input1 - input2), margin), 0)
    return _reduce(loss, reduction)


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
    _reduction_enum(reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = T.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(fused.clamp_min(fused.add_scalar(d_pos, margin) - d_neg, 0), reduction)


# ---------------------------------------------------------------- rnn helper: normalisation


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """torch.layer_norm over the trailing dims: one NativeLayerNormBackward0 node."""
    return T.layer_norm(input, normalized_shape, weight, bias, eps)


# ---------------------------------------------------------------- rnn helper: attention


def _attention_mask_as_float(mask: Tensor | None, dtype: Any, allowed: bool) -> Tensor | None:
    """A boolean mask as the additive float mask torch makes of it: 0 where attention is
    kept, -inf elsewhere. `allowed`: True marks kept positions (SDPA's convention), else True
    marks masked ones (MultiheadAttention's and the Transformer's)."""
    if mask is None or mask.dtype != T.bool:
        return mask
    keep = np.asarray(mask.tolist(), dtype=bool)
    if not allowed:
        keep = ~keep
    return T.tensor(np.where(keep, 0.0, -np.inf), dtype=dtype)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(q k^T * scale + mask) v, chosen as torch 2.13's CPU dispatcher chooses: the fused
    flash kernel for 4-D inputs without dropout whose value has the query's head size; else
    torch's math path (q and k^T each scaled by sqrt(scale), matmul, mask added,
    _safe_softmax, dropout, matmul)."""
    if enable_gqa:
        raise NotImplementedError(
            "scaled_dot_product_attention(enable_gqa=True) is not supported by detachviz"
        )
    mask = _attention_mask_as_float(attn_mask, query.dtype, allowed=True)
    e = query.shape[-1]
    flash = (
        query.dim() == 4
        and key.dim() == 4
        and value.dim() == 4
        and dropout_p == 0.0
        and value.shape[-1] == e
    )
    if flash:
        return _attention.flash_attention(query, key, value, mask, is_causal, scale)
    if is_causal and attn_mask is not None:  # (the flash kernel accepts both)
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    factor = math.sqrt(1.0 / math.sqrt(e) if scale is None else scale)
    q = _attention.mul_scalar(query, factor)
    attn = q.matmul(_attention.mul_scalar(key.transpose(-2, -1), factor))
    if is_causal:
        lq, lk = query.shape[-2], key.shape[-2]
        mask = T.tensor(np.where(np.tri(lq, lk, dtype=bool), 0.0, -np.inf), dtype=query.dtype)
    if mask is not None:
        attn = attn + mask
    attn = _attention.safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _canonical_mask(mask: Tensor | None, dtype: Any) -> Tensor | None:
    """torch's F._canonical_mask: a boolean mask (True = masked) as an additive float mask."""
    if mask is not None and mask.dtype != T.bool and not mask.dtype.is_floating_point:
        raise AssertionError("only bool and floating types of masks are supported")
    return _attention_mask_as_float(mask, dtype, allowed=False)


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None) -> Any:
    """q, k, v projected with the packed (3E, E) weight, as torch splits it: one linear for
    self-attention (then unflattened and unpacked), two when key is value, else three."""
    e = q.shape[-1]

    def unpack(proj: Tensor, n: int) -> Any:
        proj = proj.view(*proj.shape[:-1], n, e)  # unflatten(-1, (n, E))
        return proj.unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()

    if k is v:
        if q is k:
            proj = unpack(linear(q, w, b), 3)
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = unpack(linear(k, w_kv, b_kv), 2)
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """torch's multi-head attention on (L, N, E) inputs (or unbatched (L, E)): the explicit
    bmm/softmax path when the weights are wanted, scaled_dot_product_attention otherwise."""
    unsupported = {
        "bias_k": bias_k is not None,
        "bias_v": bias_v is not None,
        "add_zero_attn": add_zero_attn,
        "use_separate_proj_weight": use_separate_proj_weight,
        "static_k": static_k is not None,
        "static_v": static_v is not None,
    }
    for name, used in unsupported.items():
        if used:
            raise NotImplementedError(
                f"multi_head_attention_forward({name}=...) is not supported by detachviz"
            )
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    key_padding_mask = _canonical_mask(key_padding_mask, query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the is_causal hint goes to scaled_dot_product_attention instead
    else:
        attn_mask = _canonical_mask(attn_mask, query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    head_dim = embed_dim // num_heads
    q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    src_len = key.shape[0]
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(bsz * num_heads, tgt_len, src_len)}."
            )
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if key_padding_mask is not None:
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:
            weights = T.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = T.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = T.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    return (out if batched else out.squeeze(1)), None


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = _refusing_getattr(globals(), "torch.nn.functional", {}, methods=False)
