"""parameters_to_vector (a differentiable cat of flattened views) and vector_to_parameters
(which, as torch, rebinds each parameter's `.data`: the vector's graph is cut there)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from detachviz import torch as T

Tensor = Any


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    return T.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    if not isinstance(vec, T.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    at = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[at : at + n].view_as(p).data
        at += n
