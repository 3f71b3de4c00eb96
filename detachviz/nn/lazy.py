"""`LazyLinear` and `UninitializedParameter`: a Linear whose in_features come from its first
input, its parameters materialised (and initialised in torch's order) on the first call."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.nn.linear import Linear
from detachviz.nn.module import Module, refuse_non_cpu
from detachviz.nn.parameter import Parameter

_SHAPE_MESSAGE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


class UninitializedParameter(Parameter):
    """torch.nn.parameter.UninitializedParameter: a parameter with no shape yet. Reading its
    shape raises torch's error; `materialize(shape)` turns it, in place, into a Parameter."""

    def __repr__(self) -> str:  # type: ignore[override]
        return "<UninitializedParameter>"

    __str__ = __repr__  # type: ignore[assignment]

    @property  # type: ignore[override]
    def shape(self) -> Any:
        raise RuntimeError(_SHAPE_MESSAGE)

    def size(self, dim: int | None = None) -> Any:  # type: ignore[override]
        raise RuntimeError(_SHAPE_MESSAGE)

    def materialize(self, shape: tuple[int, ...], dtype: Any = None) -> None:
        with T.no_grad():
            self.data = T.empty(shape, dtype=dtype or self.dtype)
        self.__class__ = Parameter  # type: ignore[assignment]


class LazyLinear(Linear):
    """torch.nn.LazyLinear: `in_features` is 0 until the first forward; then the module
    becomes a plain `Linear` (torch's cls_to_become) with torch's init draws."""

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        Module.__init__(self)
        refuse_non_cpu(device)
        self.in_features = 0
        self.out_features = out_features
        kwargs = {} if dtype is None else {"dtype": dtype}
        self.weight = UninitializedParameter(T.empty(0, **kwargs))
        if bias:
            self.bias = UninitializedParameter(T.empty(0, **kwargs))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.in_features != 0:
            super().reset_parameters()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.weight, UninitializedParameter):
            x = args[0] if args else kwargs["input"]
            self.in_features = x.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
            self.__class__ = Linear  # type: ignore[assignment]
        return Module.__call__(self, *args, **kwargs)
