"""Activation modules: ReLU, Tanh, Sigmoid, Softmax, LogSoftmax (thin wrappers on functional)."""

from __future__ import annotations

from typing import Any

from detachviz.nn import functional as F
from detachviz.nn.module import Module


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input: Any) -> Any:
        return F.tanh(input)


class Sigmoid(Module):
    def forward(self, input: Any) -> Any:
        return F.sigmoid(input)


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Any:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Any:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
