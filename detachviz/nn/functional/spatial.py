"""torch.nn.functional's convolution, pooling, normalisation, padding and embedding wrappers."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T

Tensor = Any

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
