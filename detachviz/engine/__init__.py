"""detachviz's autograd engine: numpy inside, PyTorch's semantics outside.

Importing the package (or any module in it) loads every op family and installs the complete
Tensor (engine/methods.py), so no behaviour depends on which module was imported first.
Layers, lowest first: state, dtype, errors, size, node, trace, arrays, printing, tensor,
promote, function (the op kit), rules, ops/*, autograd, forward_ad, factory, sampling,
custom_function, grad_mode, methods. Each imports only modules below it. Under them all, the
numpy kernels that import no engine module: fma, summation, random (torch's generator), ranges.
"""

from __future__ import annotations

from detachviz.engine import (
    autograd,
    custom_function,
    factory,
    forward_ad,
    grad_mode,
    methods,
    namespace,
    sampling,
)

# rnn helper: layer norm, attention and the recurrent-layer pieces
from detachviz.engine.ops import (  # noqa: E402, I001
    activation,
    arith,
    attention,
    compare,
    conv,
    decomp,
    einsum,
    embedding,
    index,
    inplace,
    join,
    layernorm,
    layout,
    linalg,
    loss,
    matnorm,
    norm,
    pad,
    pointwise,
    pool,
    reduce,
    rnn,
    scan,
    scatter,
    sort,
    stats,
    unary,
    view,
)

methods.install()

__all__ = [
    "activation",
    "arith",
    "attention",
    "autograd",
    "compare",
    "conv",
    "custom_function",
    "decomp",
    "einsum",
    "embedding",
    "factory",
    "forward_ad",
    "grad_mode",
    "index",
    "inplace",
    "join",
    "layernorm",
    "layout",
    "linalg",
    "loss",
    "matnorm",
    "methods",
    "namespace",
    "norm",
    "pad",
    "pointwise",
    "pool",
    "reduce",
    "rnn",
    "sampling",
    "scan",
    "scatter",
    "sort",
    "stats",
    "unary",
    "view",
]
