"""`TransformerEncoderLayer` (self-attention then feed-forward, post- or pre-norm),
`TransformerDecoderLayer` (self-attention, cross-attention, feed-forward), their stacks
(N deep copies of one layer) and `Transformer`, built and initialised in torch's order;
a mask equal to the causal mask turns into torch's `is_causal` hint as torch detects it.

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
from detachviz.nn import init
from detachviz.nn.attention import MultiheadAttention
from detachviz.nn.container import ModuleList
from detachviz.nn.dropout import Dropout
from detachviz.nn.layernorm import LayerNorm
from detachviz.nn.linear import Linear
from detachviz.nn.module import Module, refuse_non_cpu

_ACTIVATIONS: dict[str, Callable[..., Any]] = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation: Any) -> Any:
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")
        return _ACTIVATIONS[activation]
    return activation


def _causal_mask(sz: int, dtype: Any = None) -> Any:
    """0 on and below the diagonal, -inf above it (a causal additive mask)."""
    rows = np.arange(sz)
    mask = np.where(rows[None, :] > rows[:, None], -np.inf, 0.0)
    return T.tensor(mask, dtype=dtype or T.get_default_dtype())


def _seq_len(x: Any, batch_first: bool) -> int:
    return int(x.shape[0] if x.dim() == 2 or not batch_first else x.shape[1])


def _detect_is_causal_mask(mask: Any, is_causal: bool | None, size: int | None) -> bool:
    """torch's hint: is_causal=None means "is `mask` exactly the causal mask?" (then the
    attention runs with is_causal=True and no mask, as torch's does)."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = _causal_mask(size if size is not None else mask.shape[-2], mask.dtype)
    if tuple(mask.shape) != tuple(causal.shape):
        return False
    return bool((mask == causal).all())


class _Layer(Module):
    """What an encoder and a decoder layer share: torch's constructor (both have the same
    signature), the attention blocks `ATTENTIONS` names, the feed-forward pair, one LayerNorm
    and one Dropout per sub-block, registered in torch's order (so `print(model)`,
    `state_dict()` and the seeded init are torch's)."""

    ATTENTIONS: tuple[str, ...] = ()  # the attention blocks, self-attention first

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
        refuse_non_cpu(device)
        kwargs = {} if dtype is None else {"dtype": dtype}
        attentions = self.ATTENTIONS
        for name in attentions:
            attn = MultiheadAttention(
                d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kwargs
            )
            setattr(self, name, attn)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kwargs)
        self.norm_first = norm_first
        blocks = range(1, len(attentions) + 2)
        for i in blocks:
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs))
        for i in blocks:
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(activation)

    def _attend(
        self, attn: Module, x: Any, mem: Any, dropout: Module, mask: Any, pad: Any, causal: bool
    ) -> Any:
        out = attn(
            x,
            mem,
            mem,
            attn_mask=mask,
            key_padding_mask=pad,
            need_weights=False,
            is_causal=causal,
        )[0]
        return dropout(out)

    def _sa_block(self, x: Any, attn_mask: Any, key_padding_mask: Any, is_causal: bool) -> Any:
        return self._attend(
            self.self_attn, x, x, self.dropout1, attn_mask, key_padding_mask, is_causal
        )

    def _ff_block(self, x: Any) -> Any:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return getattr(self, f"dropout{len(self.ATTENTIONS) + 1}")(x)  # the last block's


class TransformerEncoderLayer(_Layer):
    """Self-attention, then feed-forward; post- or pre-norm."""

    ATTENTIONS = ("self_attn",)

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
        batch_first = bool(self.layers) and self.layers[0].self_attn.batch_first
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
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


class TransformerDecoderLayer(_Layer):
    """Self-attention, cross-attention on `memory`, feed-forward; post- or pre-norm."""

    ATTENTIONS = ("self_attn", "multihead_attn")

    def forward(
        self,
        tgt: Any,
        memory: Any,
        tgt_mask: Any = None,
        memory_mask: Any = None,
        tgt_key_padding_mask: Any = None,
        memory_key_padding_mask: Any = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Any:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            mha = self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = self.norm2(x + mha)
            x = self.norm3(x + self._ff_block(x))
        return x

    def _mha_block(
        self, x: Any, mem: Any, attn_mask: Any, key_padding_mask: Any, is_causal: bool
    ) -> Any:
        return self._attend(
            self.multihead_attn, x, mem, self.dropout2, attn_mask, key_padding_mask, is_causal
        )


class TransformerDecoder(Module):
    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Any,
        memory: Any,
        tgt_mask: Any = None,
        memory_mask: Any = None,
        tgt_key_padding_mask: Any = None,
        memory_key_padding_mask: Any = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Any:
        batch_first = self.layers[0].self_attn.batch_first
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        output = tgt
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """torch.nn.Transformer: an encoder stack and a decoder stack, each closed by a LayerNorm;
    every parameter of more than one dimension redrawn with xavier_uniform_ after building."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = F.relu,
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        refuse_non_cpu(device)
        kwargs = {} if dtype is None else {"dtype": dtype}
        layer_kwargs: dict[str, Any] = {
            "d_model": d_model,
            "nhead": nhead,
            "dim_feedforward": dim_feedforward,
            "dropout": dropout,
            "activation": activation,
            "layer_norm_eps": layer_norm_eps,
            "batch_first": batch_first,
            "norm_first": norm_first,
            "bias": bias,
            **kwargs,
        }
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            enc_layer = TransformerEncoderLayer(**layer_kwargs)
            enc_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
            self.encoder = TransformerEncoder(enc_layer, num_encoder_layers, enc_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            dec_layer = TransformerDecoderLayer(**layer_kwargs)
            dec_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kwargs)
            self.decoder = TransformerDecoder(dec_layer, num_decoder_layers, dec_norm)
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Any,
        tgt: Any,
        src_mask: Any = None,
        tgt_mask: Any = None,
        memory_mask: Any = None,
        src_key_padding_mask: Any = None,
        tgt_key_padding_mask: Any = None,
        memory_key_padding_mask: Any = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Any:
        batch = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Any:
        """0 on and below the diagonal, -inf above it (a causal additive mask)."""
        refuse_non_cpu(device)
        return _causal_mask(sz, dtype)
