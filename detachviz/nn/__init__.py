"""torch.nn for detachviz scripts: Module, Parameter, layers, activations, losses, functional."""

from __future__ import annotations

from detachviz.nn import functional, init
from detachviz.nn.activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from detachviz.nn.container import ModuleList, Sequential
from detachviz.nn.linear import Identity, Linear
from detachviz.nn.loss import CrossEntropyLoss, MSELoss, NLLLoss
from detachviz.nn.module import Module
from detachviz.nn.parameter import Parameter

__all__ = [
    "CrossEntropyLoss",
    "Identity",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
    "init",
]
