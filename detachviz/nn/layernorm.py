"""`LayerNorm`: normalise over the trailing `normalized_shape` dims (one NativeLayerNormBackward0
node), with an optional elementwise weight (ones) and bias (zeros)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.nn import functional as F
from detachviz.nn.module import Module, refuse_non_cpu
from detachviz.nn.parameter import Parameter


class LayerNorm(Module):
    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        refuse_non_cpu(device)
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kwargs = {} if dtype is None else {"dtype": dtype}
        if elementwise_affine:
            self.weight = Parameter(T.empty(self.normalized_shape, **kwargs))
            if bias:
                self.bias = Parameter(T.empty(self.normalized_shape, **kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with T.no_grad():
            if self.weight is not None:
                self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def forward(self, input: Any) -> Any:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )
