"""`TransformerEncoderLayer` (self-attention then feed-forward, post- or pre-norm) and
`TransformerEncoder` (N deep copies of one layer), built and initialised in torch's order.

NOTE: torch's inference fast path (`torch._transformer_encoder_layer_fwd`, taken in eval
mode without grad) computes the same values with fused kernels; here the one path computes
both. Its nested-tensor variant (eval, no grad, batch_first, a boolean key padding mask)
returns zeros at the padded positions, and so does the encoder here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.nn import functional as F
from detachviz.nn.attention import MultiheadAttention
from detachviz.nn.container import ModuleList
from detachviz.nn.dropout import Dropout
from detachviz.nn.layernorm import LayerNorm
from detachviz.nn.linear import Linear
from detachviz.nn.module import Module

_ACTIVATIONS: dict[str, Callable[..., Any]] = {"relu": F.relu, "gelu": F.gelu}


class TransformerEncoderLayer(Module):
    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kwargs = {} if dtype is None else {"dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kwargs
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            if activation not in _ACTIVATIONS:
                raise RuntimeError(f"activation should be relu/gelu, not {activation}")
            activation = _ACTIVATIONS[activation]
        self.activation = activation

    def forward(
        self,
        src: Any,
        src_mask: Any = None,
        src_key_padding_mask: Any = None,
        is_causal: bool = False,
    ) -> Any:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Any, attn_mask: Any, key_padding_mask: Any, is_causal: bool) -> Any:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x: Any) -> Any:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(Module):
    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        # NOTE: deep copies: every layer starts with the given layer's weights (no new draws)
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(
        self,
        src: Any,
        mask: Any = None,
        src_key_padding_mask: Any = None,
        is_causal: bool | None = None,
    ) -> Any:
        nested = self._nested_fast_path(src, mask, src_key_padding_mask)
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=bool(is_causal),
                src_key_padding_mask=src_key_padding_mask,
            )
        if self.norm is not None:
            output = self.norm(output)
        if nested:
            # torch's nested tensor holds no padded positions: converted back, they are 0
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
        return output

    def _nested_fast_path(self, src: Any, mask: Any, key_padding_mask: Any) -> bool:
        """Whether torch's eval-mode encoder would run on a nested tensor (the padded
        positions dropped): its conditions, as far as they apply on CPU."""
        if not self.layers or key_padding_mask is None or mask is not None:
            return False
        first = self.layers[0]
        attn = first.self_attn
        return (
            self.enable_nested_tensor
            and not self.training
            and not T.is_grad_enabled()
            and src.dim() == 3
            and attn.batch_first
            and not first.norm_first
            and attn.num_heads % 2 == 0
            and first.activation in (F.relu, F.gelu)
            and key_padding_mask.dtype == T.bool
        )


class Transformer(Module):
    """torch.nn.Transformer: only its static `generate_square_subsequent_mask` (which
    encoder-only tutorials call); building the encoder-decoder model is refused."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "nn.Transformer (the encoder-decoder model) is not supported by detachviz; "
            "nn.TransformerEncoder and nn.TransformerEncoderLayer are"
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Any:
        """0 on and below the diagonal, -inf above it (a causal additive mask)."""
        rows = np.arange(sz)
        mask = np.where(rows[None, :] > rows[:, None], -np.inf, 0.0)
        return T.tensor(mask, dtype=dtype or T.get_default_dtype())
