"""torch.nn for detachviz scripts: Module, Parameter, layers, activations, losses, functional."""

from __future__ import annotations

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
from detachviz.nn.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm
from detachviz.nn.container import ModuleList, Sequential
from detachviz.nn.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from detachviz.nn.dropout import Dropout
from detachviz.nn.flatten import Flatten, Unflatten
from detachviz.nn.linear import Identity, Linear
from detachviz.nn.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from detachviz.nn.module import Module
from detachviz.nn.parameter import Parameter
from detachviz.nn.pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from detachviz.nn.sparse import Embedding

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
    # convolution, pooling, batch/group norm, embedding
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "Embedding",
    "GroupNorm",
    "MaxPool1d",
    "MaxPool2d",
]
