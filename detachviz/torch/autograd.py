"""`torch.autograd`: backward, grad, the legacy Variable, and grad-mode re-exports."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from detachviz.engine import errors as _errors
from detachviz.engine import grad_mode as _gm
from detachviz.engine.autograd import backward, grad
from detachviz.engine.custom_function import Function, function
from detachviz.engine.node import Node as _Node
from detachviz.engine.tensor import Tensor

no_grad = _gm.no_grad
enable_grad = _gm.enable_grad
set_grad_enabled = _gm.set_grad_enabled
inference_mode = _gm.inference_mode


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


class _Graph:
    Node = _Node


graph = _Graph()


class detect_anomaly:  # noqa: N801 - torch's name
    """Anomaly mode: switches the in-place error's hint (forward tracebacks not recorded)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = dict(_errors.ANOMALY)
        warnings.warn(_errors.ANOMALY_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        _errors.ANOMALY.update(enabled=True, check_nan=self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _errors.ANOMALY.update(self.prev)


class set_detect_anomaly:  # noqa: N801 - torch's name
    """Sets anomaly mode on call; restores the previous mode when used with `with`."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = dict(_errors.ANOMALY)
        _errors.ANOMALY.update(enabled=bool(mode), check_nan=check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        _errors.ANOMALY.update(self.prev)


def is_anomaly_enabled() -> bool:
    return bool(_errors.ANOMALY["enabled"])


def is_anomaly_check_nan_enabled() -> bool:
    return bool(_errors.ANOMALY["check_nan"])


_SUBMODULES = {"forward_ad": "detachviz.engine.forward_ad", "functional": None}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES and _SUBMODULES[name] is not None:
        mod = importlib.import_module(_SUBMODULES[name])
        globals()[name] = mod
        return mod
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"torch.autograd.{name} is not supported by detachviz")


__all__ = [
    "backward",
    "grad",
    "Function",
    "function",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
]
