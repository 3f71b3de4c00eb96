"""`Parameter`: a leaf tensor that requires grad and that a Module registers on assignment."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T


class Parameter(T.Tensor):
    """torch.nn.Parameter: shares `data`'s storage, is a leaf, requires grad by default."""

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = T.empty(0)
        # NOTE: torch uses Tensor._make_subclass too: same storage, fresh autograd history,
        # and no trace record (wrapping a tensor as a parameter is not a cut).
        return T.Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self) -> str:  # type: ignore[override]
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        out = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (Parameter, (self.detach(), self.requires_grad))
