"""The torch-namespace names that are neither ops nor factories: type queries, the default
dtype, `torch._C`, the legacy `Variable`, and the module-level `__getattr__`
the `torch` and `torch.autograd` namespaces use (lazy submodules; tensor methods as
functions: `torch.detach(x)`, `torch.exp_(x)`). detachviz/torch/ only re-exports these.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from detachviz.engine import deferred, state
from detachviz.engine import dtype as dtypes
from detachviz.engine.promote import promote_pair
from detachviz.engine.tensor import Tensor
from detachviz.engine.unsupported import refuse

# op families imported on first use (engine/deferred.py)
embedding = deferred.family("embedding")
loss = deferred.family("loss")
padding = deferred.family("pad")
pool = deferred.family("pool")


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(t: Tensor) -> bool:
    return t._dtype.is_floating_point


def numel(t: Tensor) -> int:
    return t.numel()


def is_storage(obj: Any) -> bool:
    return False


def get_default_dtype() -> dtypes.dtype:
    return state.default_dtype


def set_default_dtype(d: dtypes.dtype) -> None:
    if not isinstance(d, dtypes.dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    state.default_dtype = d


def promote_types(a: dtypes.dtype, b: dtypes.dtype) -> dtypes.dtype:
    return promote_pair(a, b)


class _NN:
    """torch._C._nn: the fused ops torch.nn.functional calls."""

    mse_loss = staticmethod(loss.mse_loss)
    nll_loss_nd = staticmethod(loss.nll_loss_nd)
    binary_cross_entropy = staticmethod(loss.binary_cross_entropy)
    # pooling, padding, one_hot (ops/pool.py, pad.py, embedding.py)
    adaptive_avg_pool2d = staticmethod(pool.adaptive_avg_pool2d)
    adaptive_max_pool2d = staticmethod(pool.adaptive_max_pool2d)
    avg_pool2d = staticmethod(pool.avg_pool2d)
    max_pool2d_with_indices = staticmethod(pool.max_pool2d_with_indices)
    one_hot = staticmethod(embedding.one_hot)
    pad = staticmethod(padding.pad)


deferred.site(_NN)


class _CModule:
    """torch._C, as far as scripts and nn reach into it."""

    _nn = _NN()


C = _CModule()


class _VariableMeta(type):
    def __call__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Any:
        if requires_grad:
            data.requires_grad_(True)
        return data

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """The legacy wrapper: since PyTorch 0.4 `Variable(t)` returns the tensor itself, and
    every tensor is an instance of Variable."""


def module_getattr(
    namespace: dict[str, Any], prefix: str, submodules: dict[str, str], methods: bool
) -> Callable[[str], Any]:
    """A module `__getattr__` for the namespace whose globals are `namespace`: binds the names
    of `submodules` on first use (name -> "module path" for a submodule, "module path:name"
    for a name of a module that is costly to import) and, with `methods`, makes a tensor
    method available as a function (`torch.exp_(x)` is `x.exp_()`)."""

    def getattr_(name: str) -> Any:
        target = submodules.get(name)
        if target is not None:
            path, _, attr = target.partition(":")
            mod = importlib.import_module(path)
            value = getattr(mod, attr) if attr else mod
            namespace[name] = value
            return value
        if name.startswith("__"):
            raise AttributeError(name)
        method = getattr(Tensor, name, None) if methods and not name.startswith("_") else None
        if callable(method) and not isinstance(method, property):

            def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
                return getattr(input, name)(*args, **kwargs)

            function.__name__ = name
            namespace[name] = function
            return function
        raise refuse(f"{prefix}.{name}")

    return getattr_


def module_dir(namespace: dict[str, Any], submodules: dict[str, str]) -> Callable[[], list[str]]:
    """A module `__dir__` listing the names `module_getattr` binds on first use as well."""

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(submodules))

    return dir_
