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
from detachviz.engine.ops import (
    activation,
    arith,
    compare,
    decomp,
    einsum,
    index,
    inplace,
    join,
    layout,
    linalg,
    loss,
    matnorm,
    pointwise,
    reduce,
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
    "autograd",
    "compare",
    "custom_function",
    "decomp",
    "einsum",
    "factory",
    "forward_ad",
    "grad_mode",
    "index",
    "inplace",
    "join",
    "layout",
    "linalg",
    "loss",
    "matnorm",
    "methods",
    "namespace",
    "pointwise",
    "reduce",
    "sampling",
    "scan",
    "scatter",
    "sort",
    "stats",
    "unary",
    "view",
]
