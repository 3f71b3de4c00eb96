"""torch.nn.functional's layer_norm and attention: scaled_dot_product_attention and
multi_head_attention_forward."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.engine.ops import arith
from detachviz.engine.ops import attention as _attention
from detachviz.nn.functional.core import dropout, linear, softmax

Tensor = Any

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
    q = arith.mul_scalar(query, factor)
    attn = q.matmul(arith.mul_scalar(key.transpose(-2, -1), factor))
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


def _pad_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Any:
    """Both masks widened by one kept (0) key position at the end."""
    from detachviz.nn.functional.spatial import pad

    return (
        None if attn_mask is None else pad(attn_mask, (0, 1)),
        None if key_padding_mask is None else pad(key_padding_mask, (0, 1)),
    )


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
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "multi_head_attention_forward(static_k=..., static_v=...) is not supported by detachviz"
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
    if not use_separate_proj_weight:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        e_q, e_k, e_v = query.shape[-1], key.shape[-1], value.shape[-1]
        for name, w, want in (
            ("query", q_proj_weight, (e_q, e_q)),
            ("key", k_proj_weight, (e_q, e_k)),
            ("value", v_proj_weight, (e_q, e_v)),
        ):
            assert w is not None  # checked above
            if tuple(w.shape) != want:
                raise AssertionError(f"expecting {name} weights shape of {want}, but got {w.shape}")
        q = linear(query, q_proj_weight, b_q)
        k = linear(key, k_proj_weight, b_k)
        v = linear(value, v_proj_weight, b_v)
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
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    if bias_k is not None and bias_v is not None:  # one more key and value, learned
        k = T.cat([k, bias_k.repeat(1, bsz, 1)])
        v = T.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:  # one more all-zero key and value
        zeros = (bsz * num_heads, 1, head_dim)
        k = T.cat([k, T.zeros(zeros, dtype=k.dtype)], dim=1)
        v = T.cat([v, T.zeros(zeros, dtype=v.dtype)], dim=1)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    src_len = k.shape[1]
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
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    return (out if batched else out.squeeze(1)), None
