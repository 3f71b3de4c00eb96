"""torch.nn for detachviz scripts: Module, Parameter, layers, activations, losses, functional."""

from __future__ import annotations

from detachviz.engine.namespace import module_getattr as _refusing_getattr
from detachviz.nn import functional, init
from detachviz.nn.activation import (
    ELU,
    GELU,
    Hardtanh,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from detachviz.nn.container import ModuleList, Sequential
from detachviz.nn.dropout import Dropout
from detachviz.nn.flatten import Flatten, Unflatten
from detachviz.nn.linear import Identity, Linear
from detachviz.nn.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from detachviz.nn.module import Module
from detachviz.nn.parameter import Parameter

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "Identity",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ELU",
    "GELU",
    "Hardtanh",
    "LeakyReLU",
    "ReLU",
    "ReLU6",
    "SiLU",
    "Softplus",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Unflatten",
    "functional",
    "init",
]


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = _refusing_getattr(globals(), "torch.nn", {}, methods=False)
