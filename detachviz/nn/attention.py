"""`MultiheadAttention`: torch's packed in-projection (`in_proj_weight` (3E, E)) or, with
`kdim`/`vdim` other than embed_dim, separate q/k/v projection weights; `add_bias_kv` (a learned
extra key and value), `add_zero_attn` (an all-zero one); its init order (out_proj's own Linear
draws first, then xavier for the in-projection, xavier_normal_ for bias_k, bias_v) and its
forward (F.multi_head_attention_forward)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.nn import functional as F
from detachviz.nn import init
from detachviz.nn.linear import Linear
from detachviz.nn.module import Module, refuse_non_cpu
from detachviz.nn.parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear torch uses for MultiheadAttention.out_proj (named so in its repr)."""


class MultiheadAttention(Module):
    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        refuse_non_cpu(device)
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        kwargs = {} if dtype is None else {"dtype": dtype}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(T.empty((3 * embed_dim, embed_dim), **kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(T.empty((embed_dim, embed_dim), **kwargs))
            self.k_proj_weight = Parameter(T.empty((embed_dim, self.kdim), **kwargs))
            self.v_proj_weight = Parameter(T.empty((embed_dim, self.vdim), **kwargs))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(T.empty(3 * embed_dim, **kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kwargs)
        self.bias_k: Parameter | None = None
        self.bias_v: Parameter | None = None
        if add_bias_kv:
            self.bias_k = Parameter(T.empty((1, 1, embed_dim), **kwargs))
            self.bias_v = Parameter(T.empty((1, 1, embed_dim), **kwargs))
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Any,
        key: Any,
        value: Any,
        key_padding_mask: Any = None,
        need_weights: bool = True,
        attn_mask: Any = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Any, Any]:
        batched = query.dim() == 3
        if self.batch_first and batched:
            # NOTE: torch keeps the identity of self-attention's shared tensor through the
            # transpose, so the packed in-projection stays one linear
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights
