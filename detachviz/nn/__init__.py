"""torch.nn for detachviz scripts: Module, Parameter, layers, activations, losses, functional."""

from __future__ import annotations

import detachviz.nn.utils  # noqa: F401  (binds torch.nn.utils)
from detachviz import serialization as _serialization
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
from detachviz.nn.attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from detachviz.nn.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm
from detachviz.nn.container import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from detachviz.nn.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from detachviz.nn.distance import CosineSimilarity, PairwiseDistance  # module helper's block
from detachviz.nn.dropout import Dropout
from detachviz.nn.flatten import Flatten, Unflatten
from detachviz.nn.layernorm import LayerNorm
from detachviz.nn.lazy import LazyLinear, UninitializedParameter
from detachviz.nn.linear import Identity, Linear
from detachviz.nn.loss import (  # module helper's block
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
)
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
from detachviz.nn.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from detachviz.nn.sparse import Embedding
from detachviz.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

_serialization.register_parameter_type(Parameter)  # torch.load rebuilds nn.Parameter

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
    # module helper's block
    "CosineSimilarity",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MarginRankingLoss",
    "PairwiseDistance",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    # rnn helper: containers, lazy, recurrent, norm, attention
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "LayerNorm",
    "LazyLinear",
    "ModuleDict",
    "MultiheadAttention",
    "NonDynamicallyQuantizableLinear",
    "ParameterDict",
    "ParameterList",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "Transformer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "UninitializedParameter",
    "utils",
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
    # nncov: decoder stacks
    "TransformerDecoder",
    "TransformerDecoderLayer",
]


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = _refusing_getattr(globals(), "torch.nn", {}, methods=False)
