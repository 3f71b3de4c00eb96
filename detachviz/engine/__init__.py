"""detachviz's autograd engine: numpy inside, PyTorch's semantics outside.

Importing the package (or any module in it) installs the complete Tensor (engine/methods.py):
every method is there, so no behaviour depends on which module was imported first. The op
families a plain script rarely needs (engine/deferred.py's DEFERRED) are imported when one
of their ops is first called.
Layers, lowest first: state, dtype, errors, size, node, trace, arrays, printing, tensor,
promote, function (the op kit), rules, ops/*, autograd, forward_ad, factory, sampling,
custom_function, grad_mode, methods. Each imports only modules below it. Under them all, the
numpy kernels that import no engine module but kernels (the compiled ones, optional): fma,
summation, random (torch's generator), ranges;
and deferred (the stand-ins of the op families imported on first use) and tensor_api (torch's
Tensor names detachviz lacks), which import nothing.
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

# the op families the lower layers and the Python operators need; the others are imported
# on first use (engine/deferred.py)
from detachviz.engine.ops import (  # noqa: E402, I001
    arith,
    compare,
    index,
    inplace,
    join,
    linalg,
    reduce,
    unary,
    view,
)

methods.install()

__all__ = [
    "arith",
    "autograd",
    "compare",
    "custom_function",
    "factory",
    "forward_ad",
    "grad_mode",
    "index",
    "inplace",
    "join",
    "linalg",
    "methods",
    "namespace",
    "reduce",
    "sampling",
    "unary",
    "view",
]
